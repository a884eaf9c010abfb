#[volt::main(worker_threads = "four")]
async fn main() {}

#[volt::main(flavor = "current_thread", worker_threads = 4)]
async fn main() {}

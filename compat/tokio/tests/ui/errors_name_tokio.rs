#[tokio::test(flavor = "current_thread", worker_threads = 2)]
async fn a_test() {}

#[tokio::main(flavor = "multi_thread", start_paused = true)]
async fn main() {}

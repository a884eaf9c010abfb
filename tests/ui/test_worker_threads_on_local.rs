#[volt::test(flavor = "local", worker_threads = 2)]
async fn on_local() {}

fn main() {}

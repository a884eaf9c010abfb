#[volt::test(flavor = "multi_thread", unhandled_panic = "shutdown_runtime")]
async fn panics_shut_down() {}

fn main() {}

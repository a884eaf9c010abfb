#[volt::test(flavor = "multi_thread", start_paused = true)]
async fn paused() {}

fn main() {}

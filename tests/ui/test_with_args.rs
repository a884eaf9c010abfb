#[volt::test]
async fn takes_args(_x: u32) {}

fn main() {}

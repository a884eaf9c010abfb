#[volt::main]
async fn main(_x: u32) {}

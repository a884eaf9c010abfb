#[volt::main(flavor = "current_thread", unhandled_panic = "abort")]
async fn main() {}

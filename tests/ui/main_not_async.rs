#[volt::main]
fn main() {}

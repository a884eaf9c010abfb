//! A program under console-subscriber: tasks that tokio-console can show.

#[tokio::main]
async fn main() {
    console_subscriber::init();
    let tasks: Vec<_> = (0..4)
        .map(|i| {
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(10 * i)).await
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    println!("console-subscriber ran");
}

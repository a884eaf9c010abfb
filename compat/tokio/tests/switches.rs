//! tokio's `tokio_unstable` builder switches through the `tokio` name.

#[test]
fn builder_switches_through_the_tokio_name() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_alt_timer()
        .enable_eager_driver_handoff()
        .enable_sharded_blocking_queue()
        .build()
        .unwrap();
    rt.block_on(async {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        assert_eq!(tokio::task::spawn_blocking(|| 2).await.unwrap(), 2);
    });
}

//! A pool of SQLite connections used from concurrent tasks.

use sqlx::sqlite::SqlitePoolOptions;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pool_insert_and_query() {
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect("sqlite:file:eco?mode=memory&cache=shared")
        .await
        .unwrap();
    sqlx::query("CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();
    let mut set = tokio::task::JoinSet::new();
    for k in 0..50i64 {
        let pool = pool.clone();
        set.spawn(async move {
            sqlx::query("INSERT INTO kv (k, v) VALUES (?, ?)")
                .bind(k)
                .bind(format!("v{k}"))
                .execute(&pool)
                .await
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap().unwrap();
    }
    let (n, v): (i64, String) =
        sqlx::query_as("SELECT COUNT(*), (SELECT v FROM kv WHERE k = 42) FROM kv")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((n, v.as_str()), (50, "v42"));
    pool.close().await;
}

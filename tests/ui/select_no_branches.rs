async fn f() {
    volt::select! {}
}

fn main() {}

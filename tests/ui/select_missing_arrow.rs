async fn f() {
    volt::select! {
        v = async { 1 } v,
    }
}

fn main() {}

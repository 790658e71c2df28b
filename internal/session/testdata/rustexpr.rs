fn f(n: u64) -> u64 {
    n + 1
}

fn g(a: i32, b: &str) {
    println!("{} {}", a, b);
}

fn main() {
    let arr = [1u8, 2, 3, 4, 5, 6];
    let sl = &arr[1..4];
    let x = f(3);
    let y = 7i32;
    g(y, "g");
    println!("{:?} {:?} {} {}", arr, sl, x, y); // LINE:use
}

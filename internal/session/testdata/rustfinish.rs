// Functions returning niche-encoded enums (Option<&T>, Option<Box<T>>:
// a pointer, 0 for None) and a fieldless enum, for
// TestRustFinishValuesMatchGDB.
#[derive(Clone, Copy)]
pub enum Kind { Num, Word, Punct }

#[inline(never)]
pub fn find<'a>(v: &'a [String], prefix: &str) -> Option<&'a String> {
    for s in v {
        if s.starts_with(prefix) { return Some(s); }
    }
    None
}

#[inline(never)]
pub fn first_even(v: &[u32]) -> Option<&u32> {
    v.iter().find(|x| **x % 2 == 0)
}

#[inline(never)]
pub fn opt_box(n: u32) -> Option<Box<u32>> { if n > 2 { Some(Box::new(n)) } else { None } }

#[inline(never)]
pub fn kind_of(n: u32) -> Kind { if n == 0 { Kind::Num } else if n == 1 { Kind::Word } else { Kind::Punct } }

fn main() {
    let v = vec!["alpha".to_string(), "gamma".to_string()];
    let a = find(&v, "ga");
    let b = find(&v, "zz");
    let nums = [1u32, 3, 4];
    let c = first_even(&nums);
    let d = first_even(&nums[..2]);
    let e = opt_box(1);
    let f = opt_box(5);
    let k = kind_of(1);
    println!("{:?} {:?} {:?} {:?} {:?} {:?} {}", a, b, c, d, e, f, k as u8);
}

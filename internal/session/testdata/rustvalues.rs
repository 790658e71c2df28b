// rustc -g: values of Rust types, printed as GDB's Rust support prints
// them with the printers rustc ships for it (TestRustValues): structs,
// tuple structs, unit structs, tuples, arrays, &str, slices, enums with
// tuple, struct and unit variants, Option's niche-encoded variants, Vec,
// String, HashMap, HashSet, BTreeMap, BTreeSet, VecDeque, Rc, Arc, Cell and RefCell; the backtrace ends at look's caller main
// (DW_AT_main_subprogram), as GDB's does.
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;
#[derive(Debug)]
pub struct Point { x: i32, y: i32 }
#[derive(Debug)]
pub struct Pair(u8, i64);
pub trait Area { fn area(&self) -> i32; }
impl Area for Point { fn area(&self) -> i32 { self.x * self.y } }
#[derive(Debug)]
pub struct Unit;
#[derive(Debug)]
pub enum Shape { Circle(f64), Rect { w: u32, h: u32 }, Empty } #[derive(Debug, Clone, Copy)] pub enum Kind { Num, Word, Punct }
#[inline(never)]
pub fn look(s: &Shape, p: &Point, o: Option<i32>, on: Option<&Point>, none: Option<&Point>, t: (i32, f64), a: [u16; 3], st: &str, c: char, b: bool, pr: Pair, u: Unit, sl: &[i32]) -> i32 {
    let local = Shape::Circle(2.5);
    let (latin, euro, unit) = ('é', '€', ());
    let rc = Rc::new(RefCell::new(vec![7i32]));
    let rc2 = rc.clone();
    let arc = Arc::new((7u8, 'q'));
    let cell = Cell::new(5i32);
    let mut dq = VecDeque::with_capacity(4);
    dq.push_back(2i32);
    dq.push_back(3);
    dq.push_front(1); // the ring wraps: head at the buffer's end
    let held = rc2.borrow().len() as i32;
    let tree: BTreeMap<u32, u32> = (0..30).map(|i| (i, i * i)).collect(); // internal nodes: height 1
    let small: BTreeSet<u8> = vec![3u8, 1].into_iter().collect();
    let bx = Box::new(Point { x: 9, y: 8 });
    let dynp: &dyn Area = &*bx; // trait objects: *dynp is the Point
    let boxed: Box<dyn Area> = Box::new(Point { x: 5, y: 6 });
    let v = vec![Point { x: 1, y: -1 }, Point { x: 2, y: -2 }];
    let name = String::from("wörld");
    let mut hm = HashMap::new();
    hm.insert(String::from("k"), 7u8);
    let mut hs = HashSet::new();
    hs.insert(42i64); let k = Kind::Word; // a fieldless enum: DW_TAG_enumeration_type
    let r = match s { Shape::Rect { w, .. } => *w as i32, _ => 0 };
    r + p.x + o.unwrap_or(0) + on.map(|q| q.y).unwrap_or(0) + none.map(|q| q.y).unwrap_or(0) + t.0 + a[1] as i32 + st.len() as i32 + c as i32 + b as i32 + pr.0 as i32 + sl[0] + bx.x + if let Shape::Circle(_) = local { 1 } else { 0 } + std::mem::size_of_val(&u) as i32 + v.len() as i32 + name.len() as i32 + hm.len() as i32 + hs.len() as i32 + latin as i32 + euro as i32 + std::mem::size_of_val(&unit) as i32 + held + dynp.area() + boxed.area() + tree.len() as i32 + small.len() as i32 + arc.0 as i32 + cell.get() + dq.len() as i32 + k as i32
}
fn main() {
    let p = Point { x: 1, y: 2 };
    let q = Point { x: 3, y: 4 };
    let s = Shape::Rect { w: 2, h: 3 };
    println!("{}", look(&s, &p, Some(5), Some(&q), None, (7, 1.5), [1, 2, 3], "héllo", 'z', true, Pair(4, -5), Unit, &[6, 7]));
}

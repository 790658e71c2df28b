// next at opt-level 2 through code where an inlined call ends in the
// middle of another file's row (an iterator's macros.rs:180): GDB takes
// that row's line as the line stepped from (set_step_info), so the next
// inlined call made on the original line stops the step. For
// TestNextMidRowRefreshMatchesGDB.
pub enum Token {
    Int(i64),
    Text(String),
}

pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[inline(never)]
pub fn sum_ints(toks: &[Token]) -> i64 {
    let mut total = 0i64;
    for t in toks {
        if let Token::Int(v) = t {
            total += *v;
        }
    }
    total
}

#[inline(never)]
pub fn parse_point(s: &str) -> Result<Point, String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 2 {
        return Err(format!("bad point: {}", s));
    }
    let x = parts[0].trim().parse::<i32>().map_err(|e| e.to_string())?;
    let y = parts[1].trim().parse::<i32>().map_err(|e| e.to_string())?;
    Ok(Point { x, y })
}

fn main() {
    let toks = vec![Token::Int(3), Token::Text("a".to_string()), Token::Int(4)];
    let p = parse_point("3, 4").unwrap();
    std::process::exit((sum_ints(&toks) + p.x as i64 + p.y as i64 - 14) as i32);
}

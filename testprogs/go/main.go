// goprog is the Go test program: built by testprogs/Makefile as
// build/goprog (go build) and build/goprog-N (-gcflags=all=-N -l).
// LINE: markers name the lines tests break at.
package main

import (
	"fmt"
	"os"
)

type point struct {
	X, Y int
	Name string
}

// Limit is a package-level variable (main.Limit, or Limit inside
// package main).
var Limit = 42

// Base is embedded in item: item's it.Name is it.Base.Name.
type Base struct {
	ID   int
	Name string
}

type item struct {
	Base
	Price float64
}

func sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total // LINE:sum
}

// named is returned in five registers: a string and a slice.
type named struct {
	S string
	T []string
}

// mk returns a named (the optimizing compiler lists its result twice).
//
//go:noinline
func mk(s string) named { return named{s, []string{s, s}} }

// apply calls f, a func value (a pointer to the closure) in rbx.
//
//go:noinline
func apply(x int, f func(int) int) int { return f(x) }

// scale takes its arguments in rax and rbx (Go's register ABI).
func scale(a, b int) int {
	c := a * b
	return c + b // LINE:scale
}

func describe(p point, m map[string]int, err error) string {
	s := fmt.Sprintf("%s(%d,%d) %d", p.Name, p.X, p.Y, len(m))
	if err != nil {
		s += err.Error()
	}
	var any interface{} = p.X
	if any == nil {
		s += "?"
	}
	return s // LINE:describe
}

func main() {
	xs := []int{1, 2, 3, 4}            // LINE:next1
	greeting := "hello, go"            // LINE:next2
	p := point{X: 3, Y: 4, Name: "pt"} // LINE:next3
	m := map[string]int{"a": 1, "b": 2}
	big := map[int]int{}
	for i := 0; i < 100; i++ {
		big[i] = i * i
	}
	it := item{Base: Base{ID: 7, Name: "kiwi"}, Price: 1.5}
	inc := func(v int) int { return v + it.ID }
	total := sum(xs) + big[9] + it.ID - 7 + Limit - 42 + scale(len(xs)-4, 3) - 3 + len(mk("q").T) - 2 + apply(0, inc) - 7
	fmt.Println(greeting, total, describe(p, m, os.ErrNotExist)) // LINE:print
}

package symbols_test

import (
	"fmt"

	"github.com/rrmcp/rrmcp/symbols"
)

func ExampleParseMaps() {
	maps, err := symbols.ParseMaps("55d0c1a00000-55d0c1a01000 r--p 00000000 08:01 1234   /usr/bin/prog\n" +
		"7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0      [vdso]\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range maps {
		fmt.Printf("%#x-%#x %s %s\n", m.Start, m.End, m.Perms, m.Path)
	}
	// Output:
	// 0x55d0c1a00000-0x55d0c1a01000 r--p /usr/bin/prog
	// 0x7ffff7fc1000-0x7ffff7fc3000 r-xp [vdso]
}

func ExampleDemangle() {
	fmt.Println(symbols.Demangle("_ZNK3geo6Circle4areaEv"))
	fmt.Println(symbols.Demangle("_ZNKSi6gcountEv@@GLIBCXX_3.4"))
	fmt.Println(symbols.Demangle("_Znwm@plt"))
	fmt.Println(symbols.Demangle("main"))
	// Output:
	// geo::Circle::area() const
	// std::istream::gcount() const
	// operator new(unsigned long)@plt
	// main
}

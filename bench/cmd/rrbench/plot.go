package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
)

// series is one line of a plot: y against x, both > 0.
type series struct {
	name string
	col  color.RGBA
	xs   []float64
	ys   []float64
}

var (
	colLean  = color.RGBA{0x1f, 0x4e, 0xd8, 0xff} // blue
	colMCPGo = color.RGBA{0x2e, 0x9e, 0x3f, 0xff} // green
	colGDB   = color.RGBA{0xd6, 0x27, 0x28, 0xff} // red
)

// plotLogLog draws the series on log-log axes, with grid lines at every
// power of ten, into a PNG (standard library only: no text; RESULTS.md
// names the axes and the colours).
func plotLogLog(w io.Writer, ss []series) error {
	const W, H, pad = 640, 400, 40
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for i := range s.xs {
			minX, maxX = math.Min(minX, s.xs[i]), math.Max(maxX, s.xs[i])
			minY, maxY = math.Min(minY, s.ys[i]), math.Max(maxY, s.ys[i])
		}
	}
	if math.IsInf(minX, 1) {
		return fmt.Errorf("nothing to plot")
	}
	// Whole decades around the data.
	lx0, lx1 := math.Floor(math.Log10(minX)), math.Ceil(math.Log10(maxX))
	ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if lx1 == lx0 {
		lx1++
	}
	if ly1 == ly0 {
		ly1++
	}
	px := func(x float64) int { return pad + int((math.Log10(x)-lx0)/(lx1-lx0)*float64(W-2*pad)) }
	py := func(y float64) int { return H - pad - int((math.Log10(y)-ly0)/(ly1-ly0)*float64(H-2*pad)) }
	grid := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	axis := color.RGBA{0x40, 0x40, 0x40, 0xff}
	for d := lx0; d <= lx1; d++ {
		line(img, px(math.Pow(10, d)), pad, px(math.Pow(10, d)), H-pad, grid)
	}
	for d := ly0; d <= ly1; d++ {
		line(img, pad, py(math.Pow(10, d)), W-pad, py(math.Pow(10, d)), grid)
	}
	line(img, pad, H-pad, W-pad, H-pad, axis)
	line(img, pad, pad, pad, H-pad, axis)
	for _, s := range ss {
		for i := range s.xs {
			x, y := px(s.xs[i]), py(s.ys[i])
			if i > 0 {
				thick(img, px(s.xs[i-1]), py(s.ys[i-1]), x, y, s.col)
			}
			for dx := -3; dx <= 3; dx++ {
				for dy := -3; dy <= 3; dy++ {
					img.Set(x+dx, y+dy, s.col)
				}
			}
		}
	}
	return png.Encode(w, img)
}

// line draws a one-pixel line (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

func thick(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	for o := -1; o <= 1; o++ {
		line(img, x0, y0+o, x1, y1+o, c)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// curveSeries gathers the rows of one curve into its three series.
func curveSeries(sp curveSpec, rows []row) []series {
	var pts []point
	for _, x := range sp.xs {
		if r, ok := findRow(rows, fmt.Sprintf("curve_%s_%d", sp.name, x)); ok {
			pts = append(pts, point{float64(x), r})
		}
	}
	return seriesOf(pts)
}

// point is a row at its place on a plot's x axis.
type point struct {
	x float64
	r row
}

// seriesOf are a plot's three lines through the points: rrmcp with the
// lean client, with mcp-go's, and GDB (a side without a figure is left
// out of its line).
func seriesOf(pts []point) []series {
	lean := series{name: "rrmcp lean", col: colLean}
	goS := series{name: "rrmcp mcp-go", col: colMCPGo}
	gdb := series{name: "GDB/MI", col: colGDB}
	for _, pt := range pts {
		for _, p := range []struct {
			s *series
			v *float64
		}{{&lean, pt.r.RRMCPms}, {&goS, pt.r.MCPGoMs}, {&gdb, pt.r.GDBms}} {
			if p.v != nil && *p.v > 0 {
				p.s.xs = append(p.s.xs, pt.x)
				p.s.ys = append(p.s.ys, *p.v)
			}
		}
	}
	return []series{lean, goS, gdb}
}

func findRow(rows []row, name string) (row, bool) {
	for _, r := range rows {
		if r.Name == name {
			return r, true
		}
	}
	return row{}, false
}

// writePlots writes curve_<name>.png into dir for every curve with data
// and returns the files written by curve name.
func writePlots(dir string, rows []row) map[string]string {
	out := map[string]string{}
	for _, sp := range curveSpecs {
		var b bytes.Buffer
		if err := plotLogLog(&b, curveSeries(sp, rows)); err != nil {
			continue
		}
		f := filepath.Join(dir, "curve_"+sp.name+".png")
		if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
			logf("plot %s: %v", f, err)
			continue
		}
		out[sp.name] = filepath.Base(f)
	}
	return out
}

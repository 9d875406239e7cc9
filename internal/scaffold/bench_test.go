package scaffold

import (
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkRender renders the LangChain preset with every contract in memory.
func BenchmarkRender(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		o := Options{Name: "langchain", Placement: PlacementPackage, Dir: "x", Storage: "langchain-state", Contracts: AllContracts()}
		if _, err := Render(&o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderAndWrite renders and writes a fresh adapter each time.
func BenchmarkRenderAndWrite(b *testing.B) {
	b.ReportAllocs()
	base := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		o := Options{Name: "langchain", Placement: PlacementPackage, Dir: filepath.Join(base, strconv.Itoa(i))}
		p, err := Render(&o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Write(p, false); err != nil {
			b.Fatal(err)
		}
	}
}

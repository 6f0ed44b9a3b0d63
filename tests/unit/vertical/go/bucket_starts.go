// bucket_starts.go — prints the start of every CPU and memory bucket of the VPA recommender as
// upstream's histogram options compute it (first × (ratioⁿ − 1) / (ratio − 1) with Go's math.Pow),
// one "bucket cpu memory" line each, as hexadecimal float bits. Its output is
// bucket_starts.txt; regenerate with a Go toolchain: go run bucket_starts.go > bucket_starts.txt
// (written for this project; Go 1.19 from Debian, amd64, produced the committed file).
package main

import (
	"fmt"
	"math"
)

func start(first, ratio float64, bucket int) float64 {
	if bucket == 0 {
		return 0
	}
	return first * (math.Pow(ratio, float64(bucket)) - 1) / (ratio - 1)
}

func main() {
	count := int(math.Ceil(math.Log(1000*(1.05-1)/0.01+1)/math.Log(1.05))) + 1
	for b := 0; b < count; b++ {
		fmt.Printf("%d %016x %016x\n", b, math.Float64bits(start(0.01, 1.05, b)),
			math.Float64bits(start(1e7, 1.05, b)))
	}
}

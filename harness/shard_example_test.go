package harness_test

import (
	"fmt"

	"github.com/ldpbench/ldpbench/harness"
)

// Six cells, one of them ten thousand times the cost of the others (a ULE
// cell at n = 10⁷ among mean cells), on two shards: the costly cell gets a
// shard to itself.
func ExampleAssignShards() {
	costs := []float64{1, 1, 1, 1e4, 1, 1}
	fmt.Println(harness.AssignShards(costs, 2))
	// Output: [1 1 1 0 1 1]
}

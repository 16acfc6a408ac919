package btree

import (
	"testing"

	"github.com/reweighted/reweighted/samplertest"
)

// TestCheckReportsCorruption tests the checker itself: each broken
// invariant of a tree of two inner levels is reported, by name.
func TestCheckReportsCorruption(t *testing.T) {
	samplertest.CheckCatches(t, map[string]string{
		"order":         "order:",
		"count":         "count:",
		"sum":           "sum:",
		"prefix sum":    "prefix sum:",
		"separator":     "separator:",
		"separator key": "separator:",
		"fill":          "fill:",
		"parent":        "parent:",
		"where":         "where:",
		"link":          "link:",
		"unused slot":   "unused slot",
		"item":          "item:",

		"leaf link out of range":  "link: leaf 19 out of range",
		"nil leaf link":           "link: leaf -1 out of range",
		"inner link out of range": "link: inner node 3 out of range",
		"inner node twice":        "link: inner node 0 reached twice",
		"inner parent":            "parent: inner node 1 has parent 0, want 2",
		"inner fill":              "fill: inner node 2 has 1 children, want 2 to 16",
		"root":                    "root -1 with 300 items",
		"lost item":               "tree reaches 299 items, want 300",
	}, func(what string) (samplertest.Checker, func()) {
		s := New(300)
		return s, func() { s.Corrupt(what) }
	})
}

package btree

import (
	"testing"

	"github.com/reweighted/reweighted/samplertest"
)

// TestCheckReportsCorruption tests the checker itself: each broken
// invariant of a tree of two inner levels is reported, by name.
func TestCheckReportsCorruption(t *testing.T) {
	samplertest.CheckCatches(t, map[string]string{
		"order":       "order:",
		"count":       "count:",
		"sum":         "sum:",
		"prefix sum":  "prefix sum:",
		"separator":   "separator:",
		"fill":        "fill:",
		"parent":      "parent:",
		"where":       "where:",
		"link":        "link:",
		"unused slot": "unused slot",
		"item":        "item:",
	}, func(what string) (samplertest.Checker, func()) {
		s := New(300)
		return s, func() { s.Corrupt(what) }
	})
}

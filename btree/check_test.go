package btree

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckReportsCorruption tests the checker itself: each broken
// invariant is reported, by name.
func TestCheckReportsCorruption(t *testing.T) {
	for what, msg := range map[string]string{
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
	} {
		s := New(300)
		require.Equal(t, 2, s.Height())
		require.NoError(t, s.Check())
		s.Corrupt(what)
		err := s.Check()
		require.Error(t, err, what)
		require.Contains(t, err.Error(), msg, what)
	}
}

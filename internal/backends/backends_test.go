package backends_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/samplertest"
)

// TestConformance runs the conformance kit on every listed backend: a
// backend added to All is checked against the whole contract here.
func TestConformance(t *testing.T) {
	for _, b := range backends.All {
		t.Run(b.Name, func(t *testing.T) { samplertest.Run(t, b.New) })
	}
}

// Every backend panics on Key of an item out of range, as a slice does.
func TestKeyPanicsOutOfRange(t *testing.T) {
	for _, b := range backends.All {
		s := b.New(3)
		require.Panics(t, func() { s.Key(3) }, b.Name)
		require.Panics(t, func() { s.Key(-1) }, b.Name)
	}
}

// Every listed backend has a distinct name, a constructor that makes
// samplers of the size asked, and Load gives the keys it was handed.
func TestList(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range backends.All {
		require.False(t, seen[b.Name], "duplicate name %s", b.Name)
		seen[b.Name] = true
		got, ok := backends.ByName(b.Name)
		require.True(t, ok)
		require.Equal(t, b.Name, got.Name)
		require.Equal(t, 5, b.New(5).Len())
		keys := []float64{3, 0, 1, 1, 2}
		s, err := backends.Load(b.New, keys)
		require.NoError(t, err)
		require.NoError(t, samplertest.Verify(s, keys, 0.1, samplertest.EdgeU), b.Name)
		_, err = backends.Load(b.New, []float64{1, -1})
		require.ErrorIs(t, err, reweighted.ErrKey)
	}
	_, ok := backends.ByName("no such backend")
	require.False(t, ok)
	require.Len(t, backends.Names(), len(backends.All))
}

package paperdata

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSets checks that every embedded set parses, has the number of
// examples its entry states, and both labels.
func TestSets(t *testing.T) {
	for _, s := range Sets {
		ds, err := s.Read()
		require.NoError(t, err, s.Name)
		require.Equal(t, s.N, ds.Len(), s.Name)
		var pos int
		for _, y := range ds.Labels {
			if y > 0 {
				pos++
			}
		}
		require.True(t, pos > 0 && pos < ds.Len(), "%s: %d positive labels of %d", s.Name, pos, ds.Len())
	}
}

package btree_test

import (
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/samplertest"
)

func TestConformance(t *testing.T) {
	samplertest.Run(t, func(n int) reweighted.Sampler { return btree.New(n) })
}

package ost_test

import (
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/samplertest"
)

func TestConformance(t *testing.T) {
	samplertest.Run(t, func(n int) reweighted.Sampler { return ost.New(n) })
}

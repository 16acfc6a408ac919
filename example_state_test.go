package reweighted_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/levels"
)

func Example_state() {
	n := 1000
	s := levels.New(n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		if err := s.Set(i, rng.ExpFloat64()); err != nil {
			panic(err)
		}
	}
	eps := 1 / float64(2*n)

	// Save: the keys and, for levels, the order its draws depend on.
	saved, err := s.MarshalBinary()
	if err != nil {
		panic(err)
	}
	// Restore into a sampler of any size: it draws what s draws.
	r := levels.New(0)
	if err := r.UnmarshalBinary(saved); err != nil {
		panic(err)
	}
	i, _, _ := s.Draw(eps, rand.NewPCG(3, 4))
	j, _, _ := r.Draw(eps, rand.NewPCG(3, 4))
	fmt.Println("the same draw:", i == j)

	// Any backend restores the keys of any other.
	b := btree.New(0)
	if err := b.UnmarshalBinary(saved); err != nil {
		panic(err)
	}
	fmt.Println("the same keys in a btree:", b.Len() == n && b.Key(7) == s.Key(7))

	// Clone: an independent copy, say to try another step size.
	c := s.Clone()
	if err := c.Set(0, 100); err != nil {
		panic(err)
	}
	fmt.Println("the original unchanged:", s.Key(0) != 100)

	// Bad bytes: an error, and the receiver keeps its state.
	saved[20] ^= 1
	err = r.UnmarshalBinary(saved)
	fmt.Println(errors.Is(err, reweighted.ErrFormat), r.Len())
	// Output:
	// the same draw: true
	// the same keys in a btree: true
	// the original unchanged: true
	// true 1000
}

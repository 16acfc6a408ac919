package driver

import (
	"fmt"

	"github.com/reweighted/reweighted"
)

// Resizer is an Index whose number of items can change, which
// UnmarshalBinary needs to restore a saved state of another size.
type Resizer interface {
	// Resize makes the index one of n items, all keys 0, n ≥ 0.
	Resize(n int)
}

// Shaper is an Index whose float sums depend on its shape as well as on
// its keys: the same keys in another shape add them in another order, and
// so may round λ, Prob and Sample's p differently in the last bit. Its
// saved state carries its shape, in the extension of
// reweighted.AppendState under a tag of its own, and a sampler restored
// from it has that shape, every sum formed by the same additions.
type Shaper interface {
	// ShapeSize returns the length of the extension AppendShape appends.
	ShapeSize() int
	// AppendShape appends the extension: the index's tag, then its shape.
	AppendShape(b []byte) []byte
	// RestoreShape replaces the index by one of len(keys) items holding
	// keys, valid and summing to at most MaxSum, in the shape that ext
	// describes, in O(n) (or as Build costs), and returns true; or returns
	// false, changing nothing, if ext does not begin with the index's tag.
	// A shape that does not fit the keys or breaks an invariant of the
	// index is an error wrapping reweighted.ErrFormat that changes nothing
	// and allocates no more than the keys and ext justify.
	RestoreShape(keys []float64, ext []byte) (bool, error)
}

// AppendBinary appends the saved state of the sampler, its keys in the
// format of reweighted.AppendState, to b, and its shape if the index is a
// Shaper. It implements encoding.BinaryAppender and never fails.
func (d *Driver) AppendBinary(b []byte) ([]byte, error) {
	if sh, ok := d.ix.(Shaper); ok {
		return reweighted.AppendState(b, d, sh.AppendShape), nil
	}
	return reweighted.AppendState(b, d, nil), nil
}

// MarshalBinary returns the saved state of the sampler, as AppendBinary
// appends it. It implements encoding.BinaryMarshaler and never fails.
func (d *Driver) MarshalBinary() ([]byte, error) {
	ext := 0
	if sh, ok := d.ix.(Shaper); ok {
		ext = sh.ShapeSize()
	}
	return d.AppendBinary(make([]byte, 0, reweighted.StateSize(d.Len(), ext)))
}

// UnmarshalBinary replaces the sampler's keys, and its number of items,
// by those of a saved state that any backend wrote, in O(n) plus the
// index's Build. The keys are the whole state of a map-exact sampler up
// to the rounding of its sums: a Shaper restores its own shape from a
// state it wrote, so that it answers as the saved sampler did, bit for
// bit; any other extension is ignored, and the keys are built as Load
// builds them. It implements encoding.BinaryUnmarshaler. Errors wrap
// reweighted.ErrFormat (and reweighted.ErrKey for keys Set would refuse);
// a state of another size than the sampler's is an error unless the index
// is a Resizer or restores its shape. A rejected call changes nothing.
func (d *Driver) UnmarshalBinary(data []byte) error {
	keys, ext, err := reweighted.DecodeState(data)
	if err != nil {
		return err
	}
	if sh, ok := d.ix.(Shaper); ok {
		own, err := sh.RestoreShape(keys, ext)
		if err != nil {
			return err
		}
		if own {
			d.zeros = 0
			for _, a := range keys {
				if a == 0 {
					d.zeros++
				}
			}
			return nil
		}
	}
	if len(keys) != d.Len() {
		r, ok := d.ix.(Resizer)
		if !ok {
			return fmt.Errorf("%w: %d keys for a sampler of %d items, whose index cannot resize", reweighted.ErrFormat, len(keys), d.Len())
		}
		r.Resize(len(keys))
		d.zeros = len(keys)
	}
	if len(keys) == 0 {
		return nil
	}
	// The keys are valid: Load refuses none of them.
	return d.Load(keys)
}

// Rebind returns a copy of d over ix, which holds the same keys as d's
// index: a backend's Clone gives it a copy of its index, and the Driver
// keeps what it counted of the keys rather than count them again.
func (d *Driver) Rebind(ix Index) Driver {
	c := Driver{ix: ix, zeros: d.zeros}
	c.sel, _ = ix.(BatchSelector)
	c.upd, _ = ix.(BatchUpdater)
	return c
}

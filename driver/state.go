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

// AppendBinary appends the saved state of the sampler, its keys in the
// format of reweighted.AppendState, to b. It implements
// encoding.BinaryAppender and never fails.
func (d *Driver) AppendBinary(b []byte) ([]byte, error) {
	return reweighted.AppendState(b, d, nil), nil
}

// MarshalBinary returns the saved state of the sampler, its keys in the
// format of reweighted.AppendState. It implements encoding.BinaryMarshaler
// and never fails.
func (d *Driver) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, reweighted.StateSize(d.Len(), 0)))
}

// UnmarshalBinary replaces the sampler's keys, and its number of items,
// by those of a saved state that any backend wrote (an extension is
// ignored: the keys are the whole state of a map-exact sampler), in O(n)
// plus the index's Build. It implements encoding.BinaryUnmarshaler.
// Errors wrap reweighted.ErrFormat (and reweighted.ErrKey for keys Set
// would refuse); a state of another size than the sampler's is an error
// unless the index is a Resizer. A rejected call changes nothing.
func (d *Driver) UnmarshalBinary(data []byte) error {
	keys, _, err := reweighted.DecodeState(data)
	if err != nil {
		return err
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

package libsvm_test

import (
	"bytes"
	"testing"

	"github.com/reweighted/reweighted/libsvm"
)

// FuzzReadRaw checks that any input either fails cleanly or yields a
// well-formed data set: row offsets increasing, indices strictly increasing
// within a row and below D.
func FuzzReadRaw(f *testing.F) {
	f.Add([]byte(tiny))
	f.Add([]byte("1 1:1\n"))
	f.Add([]byte("-1 3:0.5 7:1e-300\n+1\n"))
	f.Add([]byte("1 qid:2 2:3\n# c\n"))
	f.Add([]byte{0x1f, 0x8b, 0x08})
	f.Add([]byte("BZh9"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := libsvm.ReadRaw(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(d.Ptr) != d.Len()+1 || d.Ptr[0] != 0 || d.Ptr[d.Len()] != d.NNZ() || len(d.Idx) != len(d.Val) {
			t.Fatalf("bad shape: %d labels, %d offsets, %d indices, %d values", d.Len(), len(d.Ptr), len(d.Idx), len(d.Val))
		}
		for i := range d.Len() {
			if d.Ptr[i] > d.Ptr[i+1] {
				t.Fatalf("row %d: offsets decrease", i)
			}
			idx, _ := d.Row(i)
			for k, j := range idx {
				if j < 0 || int(j) >= d.D || (k > 0 && j <= idx[k-1]) {
					t.Fatalf("row %d: index %d out of order or range (D = %d)", i, j, d.D)
				}
			}
		}
	})
}

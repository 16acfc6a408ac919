package libsvm_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reweighted/reweighted/libsvm"
)

// Read parses the LIBSVM text format: a label, then 1-based index:value
// pairs. Labels 0 and 1 become −1 and +1; the indices become 0-based.
func ExampleRead() {
	const data = `1 1:0.5 3:-1
0 2:0.25
# a comment line
1 1:1 2:1 3:1
`
	ds, err := libsvm.Read(strings.NewReader(data))
	if err != nil {
		panic(err)
	}
	fmt.Println("examples:", ds.Len(), "features:", ds.Dim(), "stored values:", ds.NNZ())
	fmt.Println("labels:", ds.Labels)
	for i := range ds.Len() {
		idx, val := ds.Row(i)
		fmt.Println("row", i, idx, val)
	}
	// Output:
	// examples: 3 features: 3 stored values: 6
	// labels: [1 -1 1]
	// row 0 [0 2] [0.5 -1]
	// row 1 [1] [0.25]
	// row 2 [0 1 2] [1 1 1]
}

// A malformed line is an error wrapping ErrFormat that names the line.
func ExampleRead_error() {
	_, err := libsvm.Read(strings.NewReader("1 1:0.5\n-1 3:1 2:1\n"))
	fmt.Println(errors.Is(err, libsvm.ErrFormat))
	fmt.Println(err)
	// Output:
	// true
	// line 2: libsvm: bad format: index "2" is not above the previous one, 3 (indices must increase)
}

// ReadRaw keeps the labels as written: regression targets, or more than two
// classes.
func ExampleReadRaw() {
	ds, err := libsvm.ReadRaw(strings.NewReader("2.5 1:1\n-0.75 2:1\n3 1:1 2:1\n"))
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.Labels)
	// Output: [2.5 -0.75 3]
}

// ReadFile reads a file plain or compressed with gzip or bzip2, whatever its
// name says.
func ExampleReadFile() {
	ds, err := libsvm.ReadFile("testdata/tiny.txt.bz2")
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.Len(), "examples,", ds.Dim(), "features, labels", ds.Labels)
	// Output: 3 examples, 3 features, labels [1 -1 1]
}

// BinaryLabels maps the smaller of two label values to −1 and the larger to
// +1, in place.
func ExampleBinaryLabels() {
	y := []float64{2, 1, 1, 2}
	if err := libsvm.BinaryLabels(y); err != nil {
		panic(err)
	}
	fmt.Println(y)
	fmt.Println(libsvm.BinaryLabels([]float64{0, 1, 2}))
	// Output:
	// [1 -1 -1 1]
	// libsvm: bad format: more than two label values (0, 1, 2)
}

// NormalizeRows scales every non-zero row to unit length, as the paper does
// for its LIBSVM data sets.
func ExampleDataset_NormalizeRows() {
	ds, err := libsvm.Read(strings.NewReader("1 1:3 2:4\n-1\n"))
	if err != nil {
		panic(err)
	}
	ds.NormalizeRows()
	for i := range ds.Len() {
		_, val := ds.Row(i)
		fmt.Printf("%.3g\n", val) // 3·(1/5) is 0.6000000000000001 in float64
	}
	// Output:
	// [0.6 0.8]
	// []
}

// Synthetic generates the regression set of the paper's supplement: dense
// Gaussian rows and targets with Cauchy noise, the same for the same seed.
func ExampleSynthetic() {
	a := libsvm.Synthetic(1, 1000, 10)
	b := libsvm.Synthetic(1, 1000, 10)
	fmt.Println(a.Len(), "examples,", a.Dim(), "features,", a.NNZ(), "stored values")
	fmt.Println("same seed, same data:", a.Labels[999] == b.Labels[999] && a.Val[9999] == b.Val[9999])
	// Output:
	// 1000 examples, 10 features, 10000 stored values
	// same seed, same data: true
}

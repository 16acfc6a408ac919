// Package paperdata embeds the two smallest data sets of the SRG paper's
// Figure 1, mushrooms and phishing, in the LIBSVM binary format as
// distributed on the LIBSVM data sets page
// (https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html), so
// that the report shows real panels of the figure with nothing to download.
// cmd/srgreport and the tests of srg import it; the two files add about
// 170 KB to a binary that does.
//
// Attribution. Both sets come from the UCI Machine Learning Repository and
// are licensed under Creative Commons Attribution 4.0 (CC BY 4.0):
//
//   - mushrooms: "Mushroom" (J. Schlimmer, 1981), UCI Machine Learning
//     Repository, https://archive.ics.uci.edu/dataset/73/mushroom;
//   - phishing: "Phishing Websites" (R. Mohammad, L. McCluskey and F.
//     Thabtah, 2012), UCI Machine Learning Repository,
//     https://archive.ics.uci.edu/dataset/327/phishing+websites.
//
// The LIBSVM versions (categorical features one-hot encoded, labels ±1 or
// 0/1) are by C.-C. Chang and C.-J. Lin. The files here are those versions,
// gzip-compressed and unchanged.
package paperdata

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/reweighted/reweighted/libsvm"
)

//go:embed mushrooms.gz
var mushrooms []byte

//go:embed phishing.gz
var phishing []byte

// Set is one embedded data set.
type Set struct {
	// Name is the set's name in the paper, N its number of examples.
	Name string
	N    int
	data []byte
}

// Sets lists the embedded sets in the order of the paper's Figure 1.
var Sets = []Set{
	{Name: "mushrooms", N: 8124, data: mushrooms},
	{Name: "phishing", N: 11055, data: phishing},
}

// Read parses the set with libsvm.Read (labels mapped to −1 and +1).
func (s Set) Read() (*libsvm.Dataset, error) {
	ds, err := libsvm.Read(bytes.NewReader(s.data))
	if err != nil {
		return nil, fmt.Errorf("embedded %s: %w", s.Name, err)
	}
	return ds, nil
}

// Lookup returns the embedded set of that name, and whether there is one.
func Lookup(name string) (Set, bool) {
	for _, s := range Sets {
		if s.Name == name {
			return s, true
		}
	}
	return Set{}, false
}

// Command refsampler is the reference program of samplercheck's protocol,
// in Go: the naive backend as a sampler of the map kind, or levels as one
// of the law kind. With -bug it plants a known bug, or breaks the
// protocol, so that the checker can be shown to catch it.
//
//	refsampler [-kind map|law] [-bug NAME]
//
// The bugs of a map-kind sampler: float-rho (ρ decided in floating point,
// which keys a few ulps from the cutoff tell apart), tail-p (a tail item
// drawn with p = a/λ instead of ε), rejected-set (a Set refused for the
// sum of keys sets the key to 0 all the same), tail-slice (u in the tail
// is mapped to the slice above its own: an off-by-one). The breaks of the
// protocol, at the 200th request: crash, hang, garbage (a line that is not
// JSON), off-protocol (an answer with a key not in the protocol); and
// forgetful, which refuses every set after its second new, so that a
// sampler restored by replaying its history is answered otherwise.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/levels"
	"github.com/reweighted/reweighted/naive"
)

// float is a float of the protocol: a JSON number, or "NaN", "+Inf", "-Inf".
type float float64

func (f *float) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = float(math.NaN())
	case `"+Inf"`:
		*f = float(math.Inf(1))
	case `"-Inf"`:
		*f = float(math.Inf(-1))
	default:
		x, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return err
		}
		*f = float(x)
	}
	return nil
}

func (f float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	case math.IsInf(x, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

type request struct {
	Op      string
	N       int
	I       int
	A       float
	Eps     float
	U       float
	M       int
	Replace bool
	Seed    uint64
}

// errorName returns the protocol's name of a sentinel error.
func errorName(err error) string {
	for _, e := range []struct {
		err  error
		name string
	}{
		{reweighted.ErrKey, "ErrKey"}, {reweighted.ErrIndex, "ErrIndex"}, {reweighted.ErrEpsilon, "ErrEpsilon"},
		{reweighted.ErrUniform, "ErrUniform"}, {reweighted.ErrEmpty, "ErrEmpty"}, {reweighted.ErrBatch, "ErrBatch"},
	} {
		if errors.Is(err, e.err) {
			return e.name
		}
	}
	panic(fmt.Sprintf("refsampler: error %v has no name in the protocol", err))
}

func main() {
	kind := flag.String("kind", "map", "map (the naive backend) or law (levels)")
	bug := flag.String("bug", "", "a planted bug or protocol break (see the package documentation)")
	flag.Parse()
	var (
		s   reweighted.Distribution
		out = bufio.NewWriter(os.Stdout)
		in  = bufio.NewScanner(os.Stdin)
	)
	in.Buffer(nil, 1<<20)
	newSampler := func(n int) reweighted.Distribution {
		if *kind == "law" {
			return levels.New(n)
		}
		return planted(naive.New(n), *bug)
	}
	news := 0
	for count := 1; in.Scan(); count++ {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "refsampler: %v\n", err)
			os.Exit(2)
		}
		var answer any
		if count == 200 {
			switch *bug {
			case "crash":
				fmt.Fprintln(os.Stderr, "refsampler: a planted crash")
				os.Exit(3)
			case "hang":
				time.Sleep(time.Hour)
			case "garbage":
				fmt.Fprintln(out, "hello")
				out.Flush()
				continue
			case "off-protocol":
				fmt.Fprintln(out, `{"rho":1,"lambda":1,"sigma":2}`)
				out.Flush()
				continue
			}
		}
		var err error
		switch req.Op {
		case "kind":
			answer = map[string]string{"kind": *kind}
		case "new":
			s = newSampler(req.N)
			news++
			answer = struct{}{}
		case "set":
			err = s.Set(req.I, float64(req.A))
			if *bug == "forgetful" && news > 2 {
				err = fmt.Errorf("%w: forgotten", reweighted.ErrKey)
			}
			answer = struct{}{}
		case "solve":
			var rho int
			var lambda float64
			rho, lambda, err = s.Solve(float64(req.Eps))
			answer = struct {
				Rho    int   `json:"rho"`
				Lambda float `json:"lambda"`
			}{rho, float(lambda)}
		case "prob":
			var p float64
			p, err = s.Prob(req.I, float64(req.Eps))
			answer = map[string]float{"p": float(p)}
		case "sample":
			var i int
			var p float64
			i, p, err = s.(reweighted.Sampler).Sample(float64(req.Eps), float64(req.U))
			answer = struct {
				I int   `json:"i"`
				P float `json:"p"`
			}{i, float(p)}
		case "draw":
			items, probs := make([]int, max(req.M, 0)), make([]float64, max(req.M, 0))
			err = reweighted.DrawBatch(s, float64(req.Eps), rand.NewPCG(req.Seed, 0x5eed), req.Replace, items, probs)
			ps := make([]float, len(probs))
			for k, p := range probs {
				ps[k] = float(p)
			}
			answer = struct {
				Items []int   `json:"items"`
				Probs []float `json:"probs"`
			}{items, ps}
		default:
			fmt.Fprintf(os.Stderr, "refsampler: unknown op %q\n", req.Op)
			os.Exit(2)
		}
		if err != nil {
			answer = map[string]string{"error": errorName(err), "message": err.Error()}
		}
		line, _ := json.Marshal(answer)
		out.Write(line)
		out.WriteByte('\n')
		out.Flush()
	}
}

// planted returns s with the bug named plant, or s itself.
func planted(s *naive.Sampler, plant string) reweighted.Sampler {
	switch plant {
	case "float-rho":
		return &floatRho{s}
	case "tail-p", "tail-slice":
		return &tail{s, plant}
	case "rejected-set":
		return &rejectedSet{s}
	}
	return s
}

// rejectedSet clears a key whose new value is refused for the sum of keys.
type rejectedSet struct{ *naive.Sampler }

func (s *rejectedSet) Set(i int, a float64) error {
	err := s.Sampler.Set(i, a)
	if errors.Is(err, reweighted.ErrKey) && a >= 0 && a <= math.MaxFloat64 && i >= 0 && i < s.Len() {
		_ = s.Sampler.Set(i, 0)
	}
	return err
}

// tail maps u in the tail to the slice above its own (tail-slice), or
// reports a tail item's p as a/λ (tail-p).
type tail struct {
	*naive.Sampler
	plant string
}

func (s *tail) Sample(eps, u float64) (int, float64, error) {
	i, p, err := s.Sampler.Sample(eps, u)
	if err != nil {
		return i, p, err
	}
	rho, lambda, _ := s.Solve(eps)
	n := s.Len()
	if rho == n || eps == 0 || lambda == 0 || u < 1-float64(n-rho)*eps {
		return i, p, nil
	}
	if s.plant == "tail-p" {
		return i, s.Key(i) / lambda, nil
	}
	if u+eps < 1 {
		return s.Sampler.Sample(eps, u+eps)
	}
	return i, p, nil
}

// floatRho decides ρ by the predicate of Lemma 1 in floating point, and
// draws by Algorithm 4 on that ρ, in floating point too.
type floatRho struct{ *naive.Sampler }

// solve returns the canonical order, the float prefix sums, ρ and λ; ok
// is false where naive answers (all keys 0, ε = 1/n).
func (s *floatRho) solve(eps float64) (order []int, sums []float64, rho int, lambda float64, ok bool) {
	n := s.Len()
	order = make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch a, b := s.Key(x), s.Key(y); {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	sums = make([]float64, n+1)
	for r, i := range order {
		sums[r+1] = sums[r] + s.Key(i)
	}
	if sums[n] == 0 || eps == 1/float64(n) {
		return nil, nil, 0, 0, false
	}
	for r := 1; r <= n; r++ {
		if s.Key(order[r-1])*(1-float64(n-r)*eps) >= eps*sums[r] {
			rho = r
		}
	}
	rho = max(rho, 1)
	return order, sums, rho, sums[rho] / (1 - float64(n-rho)*eps), true
}

func (s *floatRho) Solve(eps float64) (int, float64, error) {
	rho, lambda, err := s.Sampler.Solve(eps)
	if err != nil {
		return rho, lambda, err
	}
	if _, _, r, l, ok := s.solve(eps); ok {
		return r, l, nil
	}
	return rho, lambda, nil
}

func (s *floatRho) Prob(i int, eps float64) (float64, error) {
	p, err := s.Sampler.Prob(i, eps)
	if err != nil {
		return p, err
	}
	order, _, rho, lambda, ok := s.solve(eps)
	if !ok {
		return p, nil
	}
	if slices.Index(order, i) < rho {
		return s.Key(i) / lambda, nil
	}
	return eps, nil
}

func (s *floatRho) Sample(eps, u float64) (int, float64, error) {
	i, p, err := s.Sampler.Sample(eps, u)
	if err != nil {
		return i, p, err
	}
	order, sums, rho, lambda, ok := s.solve(eps)
	if !ok {
		return i, p, nil
	}
	n := s.Len()
	c := 1 - float64(n-rho)*eps
	r := rho
	if u < c {
		r = 1 + sort(sums[1:rho+1], lambda*u)
		for r < rho && s.Key(order[r-1]) == 0 {
			r++
		}
	} else {
		r = max(rho+1, min(n, n-int((u-c)/eps)))
	}
	i = order[r-1]
	p, _ = s.Prob(i, eps)
	return i, p, nil
}

// sort returns the first index of sums, which is sorted, whose value
// exceeds x, or the last index.
func sort(sums []float64, x float64) int {
	k, _ := slices.BinarySearchFunc(sums, x, func(s, x float64) int {
		if s > x {
			return 1
		}
		return -1
	})
	return min(k, len(sums)-1)
}

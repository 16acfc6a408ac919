package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"

	"github.com/reweighted/reweighted"
)

// The weighted kind (protocol version 2): a program that does total, and
// find or draw or both. The checker asks once which, and makes samplers
// that are a reweighted.WeightedFinder, a reweighted.WeightedDrawer, both
// or neither, so that the kit's checks probe them as they would a Go
// value.

// abilities is what a program of the weighted kind does besides total.
type abilities struct{ find, draw bool }

func (a abilities) String() string {
	yes := map[bool]string{true: "yes", false: "no (ErrUnsupported: its checks are skipped)"}
	return fmt.Sprintf("find: %s; draw: %s", yes[a.find], yes[a.draw])
}

// probeWeighted asks the program, on one item of weight 1, for a find and a
// draw, and tells which it answers otherwise than ErrUnsupported.
func (g *Program) probeWeighted() abilities {
	s := g.newBase(1)
	if err := s.Set(0, 1); err != nil {
		g.fail(&ProtocolError{Request: string(setRequest(0, 1)), Problem: fmt.Sprintf("answered %v to the first set of an item", err)})
	}
	w := weighted{s}
	_, errFind := w.find(0.5)
	req := []byte(`{"op":"draw","m":1,"seed":1}`)
	_, errDraw := s.call(req)
	return abilities{find: !errors.Is(errFind, errUnsupported), draw: !errors.Is(errDraw, errUnsupported)}
}

// newWeighted makes a sampler of n items of the weighted kind, with the
// methods of what the program does.
func (g *Program) newWeighted(n int, can abilities) reweighted.Weighted {
	w := weighted{g.newBase(n)}
	switch {
	case can.find && can.draw:
		return weightedBoth{w}
	case can.find:
		return weightedFinder{w}
	case can.draw:
		return weightedDrawer{w}
	}
	return w
}

// weighted is a program of the weighted kind as a reweighted.Weighted;
// its find and draw are unexported, so that it is neither a
// WeightedFinder nor a WeightedDrawer, and each wrapper below exports
// only what the program does.
type weighted struct{ *base }

type (
	weightedFinder struct{ weighted }
	weightedDrawer struct{ weighted }
	weightedBoth   struct{ weighted }
)

func (s weightedFinder) Find(u float64) (int, error)       { return s.weighted.find(u) }
func (s weightedDrawer) Draw(src rand.Source) (int, error) { return s.weighted.draw(src) }
func (s weightedBoth) Find(u float64) (int, error)         { return s.weighted.find(u) }
func (s weightedBoth) Draw(src rand.Source) (int, error)   { return s.weighted.draw(src) }

var (
	_ reweighted.WeightedFinder = weightedFinder{}
	_ reweighted.WeightedDrawer = weightedDrawer{}
	_ reweighted.WeightedFinder = weightedBoth{}
	_ reweighted.WeightedDrawer = weightedBoth{}
)

func (s weighted) Total() (float64, error) {
	req := []byte(`{"op":"total"}`)
	resp, err := s.read(req)
	if err != nil {
		return 0, err
	}
	var a struct{ Total jfloat }
	s.g.decode(req, resp, &a, "total")
	return float64(a.Total), nil
}

func (s weighted) find(u float64) (int, error) {
	req := []byte(`{"op":"find","u":` + float(u) + `}`)
	resp, err := s.read(req)
	if err != nil {
		return 0, err
	}
	var a struct{ I jint }
	s.g.decode(req, resp, &a, "i")
	s.inRange(req, int(a.I))
	return int(a.I), nil
}

// drawBuffer holds draws that one request made and Draw has not returned
// yet: the kit draws one item at a time, and a request a draw would cost
// a program a line each. The draws of one request are independent, so
// returning them one by one is drawing one by one; a Set, or a draw from
// another source, empties the buffer.
type drawBuffer struct {
	src   rand.Source
	items []int
	size  int // the size of the last request
}

// maxDrawRequest is the most draws one request asks for.
const maxDrawRequest = 1 << 16

// draw returns the next draw of the buffer, asking the program for more,
// twice as many as the last time, when it is empty. A draw the contract
// rejects (no items, or every weight 0) is still sent, with seed 0, for
// the program's own answer, but takes no number from src.
func (s weighted) draw(src rand.Source) (int, error) {
	b := &s.drawn
	if len(b.items) > 0 && sameSource(b.src, src) {
		i := b.items[0]
		b.items = b.items[1:]
		return i, nil
	}
	empty := true
	for _, a := range s.keys {
		empty = empty && a == 0
	}
	var seed uint64
	m := 1
	if !empty {
		seed = src.Uint64()
		if sameSource(b.src, src) {
			m = min(2*b.size, maxDrawRequest)
		}
	}
	req := []byte(fmt.Sprintf(`{"op":"draw","m":%d,"seed":%d}`, m, seed))
	resp, err := s.call(req)
	if err != nil {
		return 0, err
	}
	var a struct{ Items rawArray }
	s.g.decode(req, resp, &a, "items")
	items, perr := parseInts(a.Items)
	if perr != nil {
		s.g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("answer %s: %v", clip(resp), perr)})
	}
	if len(items) != m {
		s.g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("%d items, want %d", len(items), m)})
	}
	for _, i := range items {
		s.inRange(req, i)
	}
	*b = drawBuffer{src: src, items: items[1:], size: m}
	if !comparable(src) {
		b.items = nil
	}
	return items[0], nil
}

// sameSource reports whether a and b are the same source, comparably.
func sameSource(a, b rand.Source) bool {
	return a != nil && comparable(a) && comparable(b) && a == b
}

func comparable(src rand.Source) bool {
	return src != nil && reflect.TypeOf(src).Comparable()
}

// rawArray is a JSON array kept raw, parsed by parseInts or parseFloats:
// answers of draws hold up to 65,536 numbers, which a decoder of one
// value at a time reads some ten times slower.
type rawArray []byte

func (r *rawArray) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '[' {
		return fmt.Errorf("%s is not an array", clip(b))
	}
	*r = append((*r)[:0], b...)
	return nil
}

// elements splits a JSON array of numbers or strings without commas inside
// them into its elements.
func elements(b []byte) ([][]byte, error) {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, fmt.Errorf("%s is not an array", clip(b))
	}
	b = bytes.TrimSpace(b[1 : len(b)-1])
	if len(b) == 0 {
		return nil, nil
	}
	out := bytes.Split(b, []byte{','})
	for k := range out {
		out[k] = bytes.TrimSpace(out[k])
	}
	return out, nil
}

// parseInts parses an array of integers of the protocol.
func parseInts(b []byte) ([]int, error) {
	els, err := elements(b)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(els))
	for k, e := range els {
		x, err := strconv.Atoi(string(e))
		if err != nil {
			return nil, fmt.Errorf("element %d, %s, is not an integer", k, clip(e))
		}
		out[k] = x
	}
	return out, nil
}

// parseFloats parses an array of floats of the protocol.
func parseFloats(b []byte) ([]float64, error) {
	els, err := elements(b)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(els))
	for k, e := range els {
		var f jfloat
		if err := f.UnmarshalJSON(e); err != nil {
			return nil, fmt.Errorf("element %d: %v", k, err)
		}
		out[k] = float64(f)
	}
	return out, nil
}

package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reweighted/reweighted"
)

// Version is the version of the protocol (PROTOCOL.md) the checker
// speaks; it speaks version 1 too, to a program that exits when asked its
// kind in version 2.
const Version = 2

// errUnsupported is the answer of a program of the weighted kind to the
// one of find and draw it does not do.
var errUnsupported = errors.New("ErrUnsupported: the program does not do this request")

// errorNames maps the protocol's error names to the contract's sentinels.
var errorNames = map[string]error{
	"ErrKey":     reweighted.ErrKey,
	"ErrIndex":   reweighted.ErrIndex,
	"ErrEpsilon": reweighted.ErrEpsilon,
	"ErrUniform": reweighted.ErrUniform,
	"ErrEmpty":   reweighted.ErrEmpty,
	"ErrBatch":   reweighted.ErrBatch,
	// Version 2, the weighted kind: find or draw not done.
	"ErrUnsupported": errUnsupported,
}

// exchange is one request and its answer, for the report of a failure.
type exchange struct{ req, resp string }

// Program drives copies of a program through the protocol and makes
// samplers of them. The kit may hold several samplers at once, and the
// protocol has one per program, so a few copies run side by side: a
// sampler whose copy was taken by another is restored on a free copy by
// replaying its history (new, then every set it made), which a
// conforming program answers as it did the first time.
type Program struct {
	argv    []string
	timeout time.Duration
	pool    int
	procs   []*proc
	clock   uint64
	broken  *ProtocolError // the first protocol error since the last reset
	recent  []exchange     // the last exchanges, oldest first
	count   int            // requests sent
	version int            // the version the program speaks, once asked
	// progress, if not nil, is called after every request: the report of
	// a property that runs long, to status.
	progress func()
	status   io.Writer
}

// keepRecent is how many exchanges Program keeps for a report.
const keepRecent = 6

// clipRecent shortens an answer kept for a report: answers of draws hold
// thousands of items.
func clipRecent(b []byte) string {
	const max = 160
	if len(b) > max {
		return string(b[:max]) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return string(b)
}

// NewProgram returns a Program that runs argv, waiting at most timeout for
// each answer.
func NewProgram(argv []string, timeout time.Duration) *Program {
	return &Program{argv: argv, timeout: timeout, pool: 3}
}

// Close stops every copy of the program.
func (g *Program) Close() {
	for _, p := range g.procs {
		p.stop()
	}
	g.procs = nil
}

// reset stops every copy and forgets a protocol error, for a fresh start.
func (g *Program) reset() {
	g.Close()
	g.broken = nil
	g.recent = nil
}

// fail records a protocol error, the first one only, and panics with it:
// the sampler's methods cannot return it, and every later request fails
// with it at once, so that a check that catches panics ends quickly.
func (g *Program) fail(e *ProtocolError) {
	if g.broken == nil {
		g.broken = e
	}
	panic(g.broken)
}

// send writes a request to p and returns the answer line.
func (g *Program) send(p *proc, req []byte) []byte {
	if g.broken != nil {
		panic(g.broken)
	}
	g.count++
	resp, perr := p.exchange(req, g.timeout)
	ex := exchange{req: string(req)}
	if perr == nil {
		ex.resp = clipRecent(resp)
	} else {
		// The problem's first line: the failure prints the whole of it,
		// a crashed program's standard error included, once.
		ex.resp = "(" + strings.SplitN(perr.Problem, "\n", 2)[0] + ")"
	}
	if len(g.recent) == keepRecent {
		g.recent = append(g.recent[:0], g.recent[1:]...)
	}
	g.recent = append(g.recent, ex)
	if perr != nil {
		g.fail(perr)
	}
	g.clock++
	p.used = g.clock
	if g.progress != nil {
		g.progress()
	}
	return resp
}

// proc returns a copy for s: its own if no other sampler took it, else a
// free one, a new one or the one used longest ago, restored to s's history.
func (g *Program) proc(s *base) *proc {
	if s.proc != nil && s.proc.owner == s {
		return s.proc
	}
	var p *proc
	for _, q := range g.procs {
		if q.owner == nil {
			p = q
			break
		}
	}
	if p == nil && len(g.procs) < g.pool {
		p = g.start()
	}
	if p == nil {
		p = slices.MinFunc(g.procs, func(a, b *proc) int { return cmp.Compare(a.used, b.used) })
	}
	p.owner = nil
	req := []byte(fmt.Sprintf(`{"op":"new","n":%d}`, s.n))
	if resp := g.send(p, req); !isEmptyObject(resp) {
		g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("answered %s, want {}", clip(resp))})
	}
	for k, h := range s.hist {
		req := setRequest(h.i, h.a)
		resp := g.send(p, req)
		if string(resp) != h.resp {
			g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf(
				"replayed as set %d of the sampler's history on a new copy of the program, it answered %s, but %s the first time: "+
					"the program must answer as a function of the requests since new", k+1, clip(resp), h.resp)})
		}
	}
	p.owner, s.proc = s, p
	return p
}

// start runs a new copy of the program.
func (g *Program) start() *proc {
	p, err := start(g.argv)
	if err != nil {
		g.fail(&ProtocolError{Request: "(none)", Problem: fmt.Sprintf("cannot start %q: %v", g.argv[0], err)})
	}
	g.procs = append(g.procs, p)
	return p
}

// Kind runs a copy of the program and asks its kind, its first request,
// in version 2 of the protocol; a program that exits when asked so, as
// one written for version 1 may, is asked again in version 1.
func (g *Program) Kind() string {
	kind, perr := g.kindIn(Version)
	if perr != nil && !perr.Timeout && strings.Contains(perr.Problem, "the program exited") {
		g.reset()
		if kind, again := g.kindIn(1); again == nil {
			return kind
		}
	}
	if perr != nil {
		g.fail(perr)
	}
	return kind
}

// kindIn asks a new copy of the program its kind in version v.
func (g *Program) kindIn(v int) (kind string, perr *ProtocolError) {
	defer func() {
		if x := recover(); x != nil {
			e, ok := x.(*ProtocolError)
			if !ok {
				panic(x)
			}
			perr = e
		}
	}()
	p := g.start()
	req := []byte(fmt.Sprintf(`{"op":"kind","version":%d}`, v))
	var a struct{ Kind string }
	g.decode(req, g.send(p, req), &a, "kind")
	kinds := map[int][]string{1: {"map", "law"}, 2: {"map", "law", "weighted"}}[v]
	if !slices.Contains(kinds, a.Kind) {
		g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("kind %q, want one of %q", a.Kind, kinds)})
	}
	g.version = v
	return a.Kind, nil
}

func isEmptyObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && len(m) == 0 && bytes.HasPrefix(bytes.TrimSpace(b), []byte{'{'})
}

// decode parses an answer that is not an error into v, a struct whose
// fields are the answer's keys, which must all be present, and no others.
func (g *Program) decode(req, resp []byte, v any, keys ...string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp, &m); err != nil || m == nil {
		g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("malformed answer %q: not a JSON object", clip(resp))})
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(keys, k) {
			g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("answer %s has %q, out of protocol (want the keys %s)", clip(resp), k, strings.Join(keys, ", "))})
		}
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("answer %s lacks %q", clip(resp), k)})
		}
	}
	d := json.NewDecoder(bytes.NewReader(resp))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("answer %s: %v", clip(resp), err)})
	}
}

// answerError returns the error of an error answer, nil for any other.
func (g *Program) answerError(req, resp []byte) error {
	if !bytes.Contains(resp, []byte(`"error"`)) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp, &m); err != nil {
		g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("malformed answer %q: not a JSON object", clip(resp))})
	}
	raw, ok := m["error"]
	if !ok {
		return nil
	}
	var a struct {
		Error   string
		Message string
	}
	g.decode(req, resp, &a, append([]string{"error"}, keysOf(m, "message")...)...)
	sentinel, ok := errorNames[a.Error]
	if !ok {
		g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("unknown error %s (want one of ErrKey, ErrIndex, ErrEpsilon, ErrUniform, ErrEmpty, ErrBatch, ErrUnsupported)", raw)})
	}
	if a.Message != "" {
		return fmt.Errorf("%w (the program: %s)", sentinel, a.Message)
	}
	return sentinel
}

// keysOf returns those of keys that m has.
func keysOf(m map[string]json.RawMessage, keys ...string) []string {
	var out []string
	for _, k := range keys {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// jfloat is a float of the protocol: a JSON number that round-trips, or
// one of the strings "NaN", "+Inf", "-Inf".
type jfloat float64

func (f *jfloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = jfloat(math.NaN())
		return nil
	case `"+Inf"`:
		*f = jfloat(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = jfloat(math.Inf(-1))
		return nil
	}
	if len(b) == 0 || b[0] == '"' || b[0] == 'n' {
		return fmt.Errorf("%s is not a float of the protocol (a JSON number, \"NaN\", \"+Inf\" or \"-Inf\")", b)
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("%s is not a float64: %v", b, err)
	}
	*f = jfloat(x)
	return nil
}

// jint is an integer of the protocol: a JSON number with no fraction or
// exponent.
type jint int

func (n *jint) UnmarshalJSON(b []byte) error {
	x, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("%s is not an integer", b)
	}
	*n = jint(x)
	return nil
}

// float formats x as the protocol does.
func float(x float64) string {
	switch {
	case math.IsNaN(x):
		return `"NaN"`
	case math.IsInf(x, 1):
		return `"+Inf"`
	case math.IsInf(x, -1):
		return `"-Inf"`
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func setRequest(i int, a float64) []byte {
	return []byte(fmt.Sprintf(`{"op":"set","i":%d,"a":%s}`, i, float(a)))
}

// setRecord is a set request a sampler made and the answer it got.
type setRecord struct {
	i    int
	a    float64
	resp string
}

// base is what a sampler of either kind is: its size, the keys the
// program accepted, and every set it sent.
type base struct {
	g     *Program
	n     int
	keys  []float64
	hist  []setRecord
	proc  *proc
	cache map[string][]byte // answers to reads since the last set
	drawn drawBuffer        // draws of the weighted kind not yet returned
}

// newBase makes a sampler of n items on a copy of the program.
func (g *Program) newBase(n int) *base {
	if n < 0 {
		panic(fmt.Sprintf("samplercheck: New(%d)", n))
	}
	s := &base{g: g, n: n, keys: make([]float64, n)}
	g.proc(s)
	return s
}

// call sends req for s and returns the answer and the error it reports.
func (s *base) call(req []byte) ([]byte, error) {
	resp := s.g.send(s.g.proc(s), req)
	return resp, s.g.answerError(req, resp)
}

// read is call for a request that reads (solve, prob, sample): the
// answer depends only on the sets since new, so until the next set the
// checker answers a repeated request as the program did the first time.
// The kit asks the same questions many times over (Observe before and
// after every Set); the program need answer them only once per state.
func (s *base) read(req []byte) ([]byte, error) {
	resp, ok := s.cache[string(req)]
	if !ok {
		resp = s.g.send(s.g.proc(s), req)
		if s.cache == nil {
			s.cache = make(map[string][]byte)
		}
		s.cache[string(req)] = resp
	}
	return resp, s.g.answerError(req, resp)
}

func (s *base) Len() int { return s.n }

// Key returns the last key that the program accepted for item i: the
// protocol has no request for it.
func (s *base) Key(i int) float64 { return s.keys[i] }

func (s *base) Set(i int, a float64) error {
	req := setRequest(i, a)
	clear(s.cache)
	s.drawn = drawBuffer{}
	resp, err := s.call(req)
	if err == nil {
		s.g.decode(req, resp, &struct{}{})
		if i >= 0 && i < s.n {
			s.keys[i] = a + 0
		}
	}
	s.hist = append(s.hist, setRecord{i, a, string(resp)})
	return err
}

func (s *base) Solve(eps float64) (int, float64, error) {
	req := []byte(`{"op":"solve","eps":` + float(eps) + `}`)
	resp, err := s.read(req)
	if err != nil {
		return 0, 0, err
	}
	var a struct {
		Rho    jint
		Lambda jfloat
	}
	s.g.decode(req, resp, &a, "rho", "lambda")
	return int(a.Rho), float64(a.Lambda), nil
}

func (s *base) Prob(i int, eps float64) (float64, error) {
	req := []byte(fmt.Sprintf(`{"op":"prob","i":%d,"eps":%s}`, i, float(eps)))
	resp, err := s.read(req)
	if err != nil {
		return 0, err
	}
	var a struct{ P jfloat }
	s.g.decode(req, resp, &a, "p")
	return float64(a.P), nil
}

// inRange fails the program for an item drawn outside [0, n): the kit
// counts draws by item, and could not report it.
func (s *base) inRange(req []byte, i int) {
	if i < 0 || i >= s.n {
		s.g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("item %d drawn, out of [0, %d)", i, s.n)})
	}
}

// mapSampler is a program of the map kind as a reweighted.Sampler.
type mapSampler struct{ *base }

func (s mapSampler) Sample(eps, u float64) (int, float64, error) {
	req := []byte(`{"op":"sample","eps":` + float(eps) + `,"u":` + float(u) + `}`)
	resp, err := s.read(req)
	if err != nil {
		return 0, 0, err
	}
	var a struct {
		I jint
		P jfloat
	}
	s.g.decode(req, resp, &a, "i", "p")
	s.inRange(req, int(a.I))
	return int(a.I), float64(a.P), nil
}

// lawSampler is a program of the law kind as a reweighted.LawSampler. It
// takes one number from the source for the seed of each draw request.
type lawSampler struct{ *base }

func (s lawSampler) Draw(eps float64, src rand.Source) (int, float64, error) {
	items, probs := make([]int, 1), make([]float64, 1)
	if err := s.DrawBatch(eps, src, true, items, probs); err != nil {
		return 0, 0, err
	}
	return items[0], probs[0], nil
}

// DrawBatch asks for len(items) draws. A call that the contract rejects
// (no items, a bad ε or batch) is still sent, with seed 0, so that the
// program's own answer is checked, but it takes no number from src: a
// rejected call uses no randomness.
func (s lawSampler) DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	m := len(items)
	// The protocol has one length per batch: slices of two lengths are the
	// checker's own to reject, after the program's ErrEmpty and ErrEpsilon.
	mismatch := len(probs) != m
	var seed uint64
	if !(mismatch || s.n == 0 || !(eps >= 0 && eps <= 1/float64(s.n)) || (!replace && m > s.n)) {
		seed = src.Uint64()
	}
	req := []byte(fmt.Sprintf(`{"op":"draw","eps":%s,"m":%d,"replace":%t,"seed":%d}`, float(eps), m, replace, seed))
	resp, err := s.call(req)
	if err != nil {
		return err
	}
	if mismatch {
		return fmt.Errorf("%w: %d items but %d probabilities", reweighted.ErrBatch, m, len(probs))
	}
	var a struct {
		Items rawArray
		Probs rawArray
	}
	s.g.decode(req, resp, &a, "items", "probs")
	is, err := parseInts(a.Items)
	if err == nil {
		var ps []float64
		ps, err = parseFloats(a.Probs)
		if err == nil && (len(is) != m || len(ps) != m) {
			err = fmt.Errorf("%d items and %d probs, want %d of each", len(is), len(ps), m)
		}
		copy(probs, ps)
	}
	if err != nil {
		s.g.fail(&ProtocolError{Request: string(req), Problem: fmt.Sprintf("answer %s: %v", clip(resp), err)})
	}
	for k, i := range is {
		s.inRange(req, i)
		items[k] = i
	}
	return nil
}

// errProtocol matches a panic value of a broken program.
var errProtocol = errors.New("protocol")

func (e *ProtocolError) Is(target error) bool { return target == errProtocol }

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ProtocolError is a program that broke the protocol: it crashed, did not
// answer in time, wrote a malformed line or answered out of protocol.
type ProtocolError struct {
	Request string // the request line that got no valid answer
	Problem string
	Timeout bool // the program did not answer in time
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("request %s: %s", e.Request, e.Problem)
}

// tail keeps the last bytes written to it: a program's standard error.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// proc is one running copy of the program.
type proc struct {
	cmd    *exec.Cmd
	in     *os.File // the program's standard input
	out    *os.File // the program's standard output
	rd     *bufio.Reader
	stderr *tail
	done   chan struct{} // closed when the program has exited
	err    error         // its exit status, once done is closed
	owner  *base         // the sampler whose history the program holds
	used   uint64        // when it last answered, for eviction
}

// start runs argv with pipes on its standard input and output.
func start(argv []string) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &proc{in: inW, out: outR, rd: bufio.NewReaderSize(outR, 1<<20), stderr: &tail{}, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	err = p.cmd.Start()
	// The child holds its own copies of these ends.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exchange writes one request line and reads one answer line, each within
// timeout. It returns the answer without its newline.
func (p *proc) exchange(req []byte, timeout time.Duration) ([]byte, *ProtocolError) {
	fail := func(timeout bool, format string, args ...any) *ProtocolError {
		return &ProtocolError{Request: string(req), Problem: fmt.Sprintf(format, args...), Timeout: timeout}
	}
	deadline := time.Now().Add(timeout)
	_ = p.in.SetWriteDeadline(deadline)
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fail(true, "the program did not read its input within %v", timeout)
		}
		return nil, fail(false, "%s", p.exited("could not be written"))
	}
	_ = p.out.SetReadDeadline(deadline)
	line, err := p.rd.ReadSlice('\n')
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fail(true, "no answer within %v (the program hangs, or does not flush its output after each line)", timeout)
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, fail(false, "an answer line longer than %d bytes", p.rd.Size())
	case errors.Is(err, io.EOF) && len(line) > 0:
		return nil, fail(false, "the answer %q ends without a newline, and the program closed its output: %s", clip(line), p.exited(""))
	case err != nil:
		return nil, fail(false, "%s", p.exited("got no answer"))
	}
	// The line lives in the reader's buffer until the next read.
	return bytes.Clone(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})), nil
}

// exited describes the program after its output or input closed: its exit
// status, if it exits within 3 s, and the end of its standard error.
func (p *proc) exited(what string) string {
	var b strings.Builder
	if what != "" {
		b.WriteString(what + ": ")
	}
	select {
	case <-p.done:
		if p.err != nil {
			fmt.Fprintf(&b, "the program exited (%v)", p.err)
		} else {
			b.WriteString("the program exited (status 0)")
		}
	case <-time.After(3 * time.Second):
		b.WriteString("the program closed its output but is still running")
	}
	if s := p.stderr.String(); s != "" {
		fmt.Fprintf(&b, "; the end of its standard error:\n%s", s)
	}
	return b.String()
}

// stop closes the program's input, which asks it to exit, and kills it if
// it has not exited within a moment.
func (p *proc) stop() {
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(200 * time.Millisecond):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.out.Close()
}

// clip shortens a line for a message.
func clip(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

package catalogue_test

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// The world fuzz targets (FuzzEtcd, FuzzAPI, FuzzStack) decode their
// input bytes into a world: a header, then up to fuzzMaxFaults fault
// records of fuzzRecordLen bytes each. Every field is one or two bytes
// read in place, and a missing byte reads as 0, so that the fuzzer's
// mutations map to changes of the world: a flipped byte changes one
// fault's kind, time, length, targets, parameters or trigger, or one
// knob of the workload; an appended record adds a fault.
const (
	fuzzHeaderLen = 8
	fuzzRecordLen = 10
	fuzzMaxFaults = 8
)

// fuzzHeader is the header's bytes: the member count (an index into the
// scenario's counts), the seed (little-endian; the world's seed is one
// more), and the etcd KV workload's knobs, which only FuzzEtcd reads:
// clients (1 to 4), their think time (10 to 265 ms), and the compaction
// interval (two low bits: off, 5 s, 10 s, 20 s) with, in bit 2, whether
// each client is pinned to one member. Bit 3 of that last byte, which
// every target reads, switches BUGGIFY on (Options.Buggify; the seed
// activates its points), so that the fuzzer explores worlds with and
// without it.
// fuzzBuggify is the header bit that switches BUGGIFY on.
const fuzzBuggify = 8

type fuzzHeader struct {
	Members                    byte
	Seed                       uint32
	Clients, Think, Compaction byte
}

// fuzzRecord is one fault's bytes. Kind indexes the layer's kinds; At
// and For scale linearly over the fault window (the fault ends by its
// end); Mask picks hosts of the kind's pool (bit i%16 for host i), and
// Mode, when a multiple of 4, a role name or a pattern of the layer
// instead; P1 to P3 are the kind's parameters; Trigger, when its two low
// bits are set, aims the fault at a named moment of the layer
// (Trigger>>2 picks it, Trigger>>6 adds copies).
type fuzzRecord struct {
	Kind, At, For byte
	Mask          uint16
	Mode          byte
	P1, P2, P3    byte
	Trigger       byte
}

// fuzzBytes reads an input byte by byte; past its end it reads zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next() byte {
	if len(*b) == 0 {
		return 0
	}
	c := (*b)[0]
	*b = (*b)[1:]
	return c
}

func (b *fuzzBytes) uint16() uint16 { return uint16(b.next()) | uint16(b.next())<<8 }

func (b *fuzzBytes) header() fuzzHeader {
	h := fuzzHeader{Members: b.next()}
	h.Seed = uint32(b.uint16()) | uint32(b.uint16())<<16
	h.Clients, h.Think, h.Compaction = b.next(), b.next(), b.next()
	return h
}

func (b *fuzzBytes) record() fuzzRecord {
	r := fuzzRecord{Kind: b.next(), At: b.next(), For: b.next(), Mask: b.uint16(), Mode: b.next()}
	r.P1, r.P2, r.P3, r.Trigger = b.next(), b.next(), b.next(), b.next()
	return r
}

// fuzzEncode lays a header and records out as an input: the inverse of
// fuzzLayer.decode, for the seed corpus.
func fuzzEncode(h fuzzHeader, recs ...fuzzRecord) []byte {
	out := []byte{h.Members}
	out = binary.LittleEndian.AppendUint32(out, h.Seed)
	out = append(out, h.Clients, h.Think, h.Compaction)
	for _, r := range recs {
		out = append(out, r.Kind, r.At, r.For)
		out = binary.LittleEndian.AppendUint16(out, r.Mask)
		out = append(out, r.Mode, r.P1, r.P2, r.P3, r.Trigger)
	}
	return out
}

// fuzzHosts are a world's hosts as a layer's faults see them.
type fuzzHosts struct {
	members []string // the etcd members
	all     []string // every host a cut or a flaky link may touch
	hit     []string // the hosts a crash, pause, clock or disk fault may hit
	nodes   []string // the kubelets' hosts (the full stack)
	roles   []string // role names a one-group fault may target
}

// fuzzLayer is one layer's fuzzed world: its scenario, the run's length,
// the fault window, and how a record becomes a fault on its hosts.
type fuzzLayer struct {
	scenario   string
	duration   time.Duration
	start, end time.Duration // faults come in [start, end)
	knobs      bool          // the header's KV workload knobs apply
	kinds      []sim.FaultKind
	moments    []string // what Trigger may aim at
	hosts      func(members int, o scenarios.Options) fuzzHosts
	// fault fills in f's targets and parameters (f.Kind, At and For are
	// set); it may change f.For, never past the fault window.
	fault func(f *sim.Fault, r fuzzRecord, h fuzzHosts)
}

// decode turns an input into the options of one run.
func (l fuzzLayer) decode(data []byte) scenarios.Options {
	b := fuzzBytes(data)
	h := b.header()
	spec, err := scenarios.Lookup(l.scenario)
	if err != nil {
		panic(err)
	}
	o := scenarios.Options{Scenario: l.scenario, Members: spec.Members[int(h.Members)%len(spec.Members)],
		Seed: 1 + uint64(h.Seed), Duration: l.duration, Schedule: sim.Schedule{}}
	if l.knobs {
		o.Clients = 1 + int(h.Clients%4)
		o.Think = time.Duration(10+int(h.Think)) * time.Millisecond
		o.Compaction = []time.Duration{-1, 5 * time.Second, 10 * time.Second, 20 * time.Second}[h.Compaction%4]
		o.PinClients = h.Compaction&4 != 0
	}
	o.Buggify = h.Compaction&fuzzBuggify != 0
	hosts := l.hosts(o.Members, o)
	for i := 0; i < fuzzMaxFaults && len(b) > 0; i++ {
		o.Schedule = append(o.Schedule, l.record(b.record(), hosts))
	}
	return o
}

// record turns one record into a fault within the fault window.
func (l fuzzLayer) record(r fuzzRecord, h fuzzHosts) sim.Fault {
	window := l.end - l.start - time.Second
	f := sim.Fault{Kind: l.kinds[int(r.Kind)%len(l.kinds)]}
	f.At = (l.start + scale(r.At, 0, window)).Truncate(time.Millisecond)
	f.For = scale(r.For, 100*time.Millisecond, l.end-f.At).Truncate(time.Millisecond)
	l.fault(&f, r, h)
	if r.Trigger&3 == 3 && len(l.moments) > 0 {
		m, err := nemesis.LookupMoment(l.moments[int(r.Trigger>>2)%len(l.moments)])
		if err != nil {
			panic(err)
		}
		aimed := m.Aim(f, 1+int(r.Trigger>>6))
		// Disarmed in time for every copy to end by the window's end.
		aimed.On.Until = l.end - aimed.On.Within - f.For
		if aimed.On.Until > f.At {
			f = aimed
		}
	}
	return f
}

// scale maps b linearly onto [lo, hi].
func scale(b byte, lo, hi time.Duration) time.Duration {
	return lo + (hi-lo)*time.Duration(b)/255
}

// subset is the hosts of pool whose bit (i%16 for host i) mask sets, or
// one host if it sets none.
func subset(mask uint16, pool []string) []string {
	var out []string
	for i, h := range pool {
		if mask&(1<<(i%16)) != 0 {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		out = []string{pool[int(mask)%len(pool)]}
	}
	return out
}

// targets is the one group of a fault on pool: a role name when Mode is
// a multiple of 4 and there are roles, Mask's subset otherwise.
func (r fuzzRecord) targets(pool, roles []string) [][]string {
	if r.Mode%4 == 0 && len(roles) > 0 {
		return [][]string{{roles[int(r.Mode/4)%len(roles)]}}
	}
	return [][]string{subset(r.Mask, pool)}
}

// sides splits pool into two or three disjoint non-empty groups: Mask's
// subset, and the rest, split again by P1's bits when both parts are
// non-empty (three only when three is true).
func (r fuzzRecord) sides(pool []string, three bool) [][]string {
	a := subset(r.Mask, pool)
	if len(a) == len(pool) {
		a = a[:len(a)-1]
	}
	rest := slices.DeleteFunc(slices.Clone(pool), func(h string) bool { return slices.Contains(a, h) })
	var b, c []string
	for i, h := range rest {
		if r.P1&(1<<(i%8)) != 0 {
			c = append(c, h)
		} else {
			b = append(b, h)
		}
	}
	switch {
	case len(b) == 0 || len(c) == 0:
		return [][]string{a, rest}
	case three:
		return [][]string{a, b, c}
	default:
		return [][]string{a, c} // a one-way cut to part of the rest
	}
}

// flaky sets a flaky fault's parameters from P1 to P3: loss up to
// maxLoss percent, duplication up to 15%, reordering up to 30%, extra
// delay up to 50 ms.
func (r fuzzRecord) flaky(f *sim.Fault, maxLoss int) {
	f.Loss = float64(int(r.P1)*maxLoss/255) / 100
	f.Dup = float64(r.P2%16) / 100
	f.Reorder = float64(int(r.P2>>4)*2) / 100
	f.Delay = time.Duration(int(r.P3)*50/255) * time.Millisecond
}

// clockOrDisk sets a clock-drift's rate (lo to hi percent), a
// clock-jump's step (up to a minute either way; it acts at once) or a
// slow-disk's fsync (10 ms to 1 s) from P1.
func (r fuzzRecord) clockOrDisk(f *sim.Fault, lo, hi int) {
	switch f.Kind {
	case sim.FaultClockDrift:
		f.Rate = float64(lo+int(r.P1)*(hi-lo)/255) / 100
	case sim.FaultClockJump:
		f.For = 0
		f.By = time.Duration(int(r.P1)*120/255-60) * time.Second
		if f.By == 0 {
			f.By = time.Second
		}
	case sim.FaultSlowDisk:
		f.Fsync = time.Duration(10+int(r.P1)*990/255) * time.Millisecond
	}
}

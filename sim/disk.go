package sim

import (
	"slices"
	"time"
)

// DiskSpec sets how long an fsync takes: Base plus a uniform draw in [0, Jitter).
type DiskSpec struct {
	SyncBase   time.Duration
	SyncJitter time.Duration
}

// DefaultDiskSpec is an SSD whose fsync takes 1-3 ms, well inside etcd's
// recommended 10 ms p99 for wal_fsync_duration.
var DefaultDiskSpec = DiskSpec{SyncBase: time.Millisecond, SyncJitter: 2 * time.Millisecond}

type diskOpKind uint8

const (
	opAppend diskOpKind = iota
	opSet
	opRemove
)

type diskOp struct {
	kind diskOpKind
	file string
	rec  []byte   // the record of an opAppend
	recs [][]byte // the records of an opSet
}

// Disk is a host's durable storage: named files of records. Writes change
// what the host reads at once but are volatile until a Sync completes, and a
// sync takes virtual time. A crash keeps only what was synced. Records handed
// to the disk must not be modified afterwards.
type Disk struct {
	host    *Host
	spec    DiskSpec
	current map[string][][]byte
	durable map[string][][]byte
	pending []diskOp // issued but not yet durable, oldest first
	synced  uint64   // ops made durable so far (count since the disk began)
	issued  uint64   // ops issued so far
	lastEnd Time     // when the latest sync in flight completes
	stream  *Stream
	slow    []*slowDisk // the slow-disk faults in force, oldest first
}

// slowDisk is one slow-disk fault in force: every fsync issued meanwhile
// takes fsync (plus the disk's jitter) instead of the disk's base latency,
// unless that is slower already.
type slowDisk struct{ fsync time.Duration }

// syncBase is the base latency of an fsync issued now: the disk's own, or
// the slowest slow-disk in force.
func (d *Disk) syncBase() time.Duration {
	base := d.spec.SyncBase
	for _, s := range d.slow {
		base = max(base, s.fsync)
	}
	return base
}

func newDisk(h *Host, spec DiskSpec) *Disk {
	if spec == (DiskSpec{}) {
		spec = DefaultDiskSpec
	}
	return &Disk{
		host:    h,
		spec:    spec,
		current: make(map[string][][]byte),
		durable: make(map[string][][]byte),
		stream:  h.w.Rand(h.name + "/disk"),
	}
}

// Records returns the file's records as the host sees them now. The slice
// must not be modified.
func (d *Disk) Records(file string) [][]byte { return d.current[file] }

// Files returns the names of the files that exist, sorted.
func (d *Disk) Files() []string { return SortedKeys(d.current) }

// Append adds a record to the end of file.
func (d *Disk) Append(file string, rec []byte) {
	d.do(diskOp{kind: opAppend, file: file, rec: rec})
}

// Set replaces the whole file with recs, atomically (write then rename).
func (d *Disk) Set(file string, recs ...[]byte) {
	d.do(diskOp{kind: opSet, file: file, recs: recs})
}

// Remove deletes the file.
func (d *Disk) Remove(file string) { d.do(diskOp{kind: opRemove, file: file}) }

func (d *Disk) do(op diskOp) {
	applyDiskOp(d.current, op)
	d.pending = append(d.pending, op)
	d.issued++
}

// applyDiskOp applies op to one view of the disk. Each view owns the
// backing arrays of its record lists exclusively (Set copies, a crash copies),
// so appending in place is safe and costs amortized O(1).
func applyDiskOp(files map[string][][]byte, op diskOp) {
	switch op.kind {
	case opAppend:
		files[op.file] = append(files[op.file], op.rec)
	case opSet:
		files[op.file] = append([][]byte(nil), op.recs...)
	case opRemove:
		delete(files, op.file)
	}
}

// Dirty reports whether some write has not been synced yet.
func (d *Disk) Dirty() bool { return d.issued > d.synced }

// Sync makes every write issued so far durable once the fsync completes,
// after the disk's sync latency (stretched by a slow-disk fault), and then
// calls done (if the host is still the same incarnation). Syncs complete
// in the order they were issued.
func (d *Disk) Sync(done func()) {
	h := d.host
	upto := d.issued
	end := h.w.now.Add(time.Duration(Jitter(d.stream, int64(d.syncBase()), int64(d.spec.SyncJitter))))
	if end < d.lastEnd {
		end = d.lastEnd
	}
	d.lastEnd = end
	f := h.w.newFsync()
	f.d, f.inc, f.upto, f.done = d, h.incarnation, upto, done
	h.w.schedule(&f.e, end)
}

// newFsync takes an fsyncOp from the world's free list, or allocates one.
func (w *World) newFsync() *fsyncOp {
	if f := takeFree(&w.freeFsyncs); f != nil {
		return f
	}
	f := &fsyncOp{}
	f.e = entry{kind: entryFsync, fsync: f, index: -1, name: "fsync"}
	return f
}

// fsyncOp is one sync in flight, with its queue entry: one allocation per
// sync.
type fsyncOp struct {
	e    entry
	d    *Disk
	inc  uint64
	upto uint64
	done func()
}

// fire completes the sync, unless the incarnation that issued it is gone;
// a frozen process finishes its fsync only once it runs again. Otherwise
// the op goes back to the world's free list.
func (f *fsyncOp) fire() {
	h := f.d.host
	if h.paused && h.incarnation == f.inc && h.state == hostUp {
		h.deferred = append(h.deferred, &f.e)
		return
	}
	d, upto, done := f.d, f.upto, f.done
	live := h.incarnation == f.inc && h.state == hostUp
	*f = fsyncOp{e: f.e}
	h.w.freeFsyncs = append(h.w.freeFsyncs, f)
	if live {
		d.complete(upto, done)
	}
}

func (d *Disk) complete(upto uint64, done func()) {
	if upto > d.synced {
		n := int(upto - d.synced)
		for _, op := range d.pending[:n] {
			applyDiskOp(d.durable, op)
		}
		d.pending = append(d.pending[:0], d.pending[n:]...)
		d.synced = upto
	}
	if done != nil {
		done()
	}
}

// crash drops what was not synced. With torn set, the unsynced writes reach
// the platter in order up to the last one, which lands only half written:
// the torn-write fault that a WAL's checksums must catch.
func (d *Disk) crash(torn bool) {
	if torn && len(d.pending) > 0 {
		last := len(d.pending) - 1
		for _, op := range d.pending[:last] {
			applyDiskOp(d.durable, op)
		}
		op := d.pending[last]
		if op.kind == opAppend {
			op.rec = append([]byte(nil), op.rec[:len(op.rec)/2]...)
			applyDiskOp(d.durable, op)
		}
	}
	d.pending = nil
	d.synced = d.issued
	d.lastEnd = 0
	d.current = make(map[string][][]byte, len(d.durable))
	for _, name := range SortedKeys(d.durable) {
		d.current[name] = append([][]byte(nil), d.durable[name]...)
	}
}

// wipe loses the whole disk, as when a member's data directory is gone: the
// etcd amnesia case.
func (d *Disk) wipe() {
	d.current = make(map[string][][]byte)
	d.durable = make(map[string][][]byte)
	d.pending = nil
	d.synced = d.issued
}

// SortedKeys returns m's keys in ascending order. Ranging over its result is
// the sanctioned way to visit a map deterministically.
func SortedKeys[K ~string | ~int | ~int32 | ~int64 | ~uint32 | ~uint64, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	// determinism: collection only; the keys are sorted before use.
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

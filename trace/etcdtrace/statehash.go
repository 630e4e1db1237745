package etcdtrace

import (
	"encoding/binary"
	"hash/fnv"
)

// StateHash fingerprints a store's state at one revision: FNV-1a over the
// live keys in key order, each with its value, mod and create revisions
// and version, length-prefixed so that field boundaries cannot blur.
// Members hash a snapshot with it and the backup-consistency check hashes
// the committed state it rebuilt from Apply events, so both sides compute
// the same function of the same content. It stands for the hash that
// `etcdutl snapshot status` reports (a CRC-32C over the name, keys and
// values of every bucket of the bolt file: etcdutl/snapshot/v3_snapshot.go,
// Status): a digest of the content, not of the bytes' layout. Unlike
// KVHash it leaves history out, which a check could not rebuild for a
// member's compaction.
// kvs must be puts in ascending key order.
func StateHash(kvs []Change) uint64 {
	h := fnv.New64a()
	var buf [binary.MaxVarintLen64]byte
	num := func(v int64) {
		n := binary.PutVarint(buf[:], v)
		h.Write(buf[:n])
	}
	str := func(s string) {
		num(int64(len(s)))
		h.Write([]byte(s))
	}
	for i := range kvs {
		c := &kvs[i]
		str(c.Key)
		str(c.Value)
		num(c.ModRev)
		num(c.CreateRev)
		num(c.Version)
	}
	return h.Sum64()
}

package raft

import (
	"testing"
)

// benchCluster is a minimal driver for benchmarks: no checker, no copies,
// messages delivered in FIFO order with the persistence contract honoured.
type benchCluster struct {
	nodes []*Node
	msgs  []Message
	spare []Message
}

func newBenchCluster(b *testing.B, size int) *benchCluster {
	c := &benchCluster{}
	for i := 1; i <= size; i++ {
		n, err := New(Config{ID: uint64(i), Peers: ids(size), Rand: fixedRand(i), PreVote: true, CheckQuorum: true}, PersistentState{})
		if err != nil {
			b.Fatal(err)
		}
		c.nodes = append(c.nodes, n)
	}
	_ = c.nodes[0].Step(Message{Type: MsgHup})
	c.run()
	if c.nodes[0].role != Leader {
		b.Fatal("no leader")
	}
	return c
}

func (c *benchCluster) process(n *Node) {
	for n.HasReady() {
		rd := n.Ready()
		c.msgs = append(c.msgs, rd.Messages...)
		n.Advance(rd)
	}
}

func (c *benchCluster) run() {
	for {
		for _, n := range c.nodes {
			c.process(n)
		}
		if len(c.msgs) == 0 {
			return
		}
		msgs := c.msgs
		c.msgs = c.spare[:0]
		for i := range msgs {
			_ = c.nodes[msgs[i].To-1].Step(msgs[i])
		}
		clear(msgs)
		c.spare = msgs
	}
}

// BenchmarkCommit measures proposals committed and applied per second on a
// 3- and 5-node cluster, one proposal per round trip, with compaction every
// 1000 entries to keep memory bounded.
func BenchmarkCommit(b *testing.B) {
	for _, size := range []int{3, 5} {
		b.Run(map[int]string{3: "3nodes", 5: "5nodes"}[size], func(b *testing.B) {
			c := newBenchCluster(b, size)
			data := []byte("0123456789abcdef")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := c.nodes[0].Propose(data); err != nil {
					b.Fatal(err)
				}
				c.run()
				if i%1000 == 999 {
					for _, n := range c.nodes {
						if err := n.Compact(n.log.applied, nil); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.StopTimer()
			if got := c.nodes[size-1].log.committed; got < uint64(b.N) {
				b.Fatalf("committed %d of %d", got, b.N)
			}
		})
	}
}

// BenchmarkCommitBatched measures throughput with 64 proposals per round.
func BenchmarkCommitBatched(b *testing.B) {
	c := newBenchCluster(b, 3)
	data := []byte("0123456789abcdef")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.nodes[0].Propose(data); err != nil {
			b.Fatal(err)
		}
		if i%64 == 63 {
			c.run()
		}
		if i%4096 == 4095 {
			for _, n := range c.nodes {
				_ = n.Compact(n.log.applied, nil)
			}
		}
	}
	c.run()
}

package nemesis

import (
	"slices"

	"github.com/kubesim/kubesim/sim"
)

// Split returns the first k members and everything else (the other members
// and the client hosts).
func Split(c *Cluster, k int) (first, rest []string) {
	first = append(first, c.Members[:k]...)
	rest = append(rest, c.Members[k:]...)
	rest = append(rest, c.Clients...)
	return first, rest
}

// PickMember draws a member and returns it with the other members: the two
// sides of a cut that parts one member from the rest of the cluster.
func PickMember(c *Cluster, rng *sim.Stream) (m string, others []string) {
	i := rng.IntN(len(c.Members))
	return c.Members[i], slices.Concat(c.Members[:i], c.Members[i+1:])
}

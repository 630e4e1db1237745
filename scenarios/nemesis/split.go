package nemesis

// Split returns the first k members and everything else (the other members
// and the client hosts).
func Split(c *Cluster, k int) (first, rest []string) {
	first = append(first, c.Members[:k]...)
	rest = append(rest, c.Members[k:]...)
	rest = append(rest, c.Clients...)
	return first, rest
}

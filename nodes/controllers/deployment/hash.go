package deployment

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/kubesim/kubesim/model"
)

// DefaultDeploymentUniqueLabelKey is the label that tells the pods of a
// Deployment's ReplicaSets apart: its value is the pod-template-hash.
const DefaultDeploymentUniqueLabelKey = "pod-template-hash"

// safeAlphabet is the alphabet of apimachinery's rand.SafeEncodeString:
// no vowels, so no words, and no characters easily confused with others.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// ComputeHash returns the pod-template-hash of template, as the real
// controller.ComputeHash: FNV-32a over the template, then the collision
// count (when set) as a little-endian uint32 in 8 bytes, and the decimal
// sum rendered with SafeEncodeString. Kubernetes hashes a dump of the Go
// struct; kubesim hashes the template's JSON form, which is deterministic
// (fields in declaration order, map keys sorted), so equal templates hash
// alike on every run and machine.
func ComputeHash(template *model.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	data, err := json.Marshal(template)
	if err != nil {
		panic("deployment: a pod template does not encode: " + err.Error())
	}
	h.Write(data)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return safeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// safeEncodeString maps every byte of s into safeAlphabet.
func safeEncodeString(s string) string {
	out := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = safeAlphabet[int(s[i])%len(safeAlphabet)]
	}
	return string(out)
}

// equalIgnoreHash reports whether two pod templates are equal once the
// pod-template-hash label is dropped from both, as EqualIgnoreHash. The
// comparison is on the JSON forms, so that nil and empty maps and slices
// are equal, as under apimachinery's semantic equality.
func equalIgnoreHash(a, b *model.PodTemplateSpec) bool {
	return string(encodeWithoutHash(a)) == string(encodeWithoutHash(b))
}

func encodeWithoutHash(t *model.PodTemplateSpec) []byte {
	var c model.PodTemplateSpec
	t.DeepCopyInto(&c)
	delete(c.Labels, DefaultDeploymentUniqueLabelKey)
	data, err := json.Marshal(&c)
	if err != nil {
		panic("deployment: a pod template does not encode: " + err.Error())
	}
	return data
}

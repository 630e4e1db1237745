package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

type widgetSpec struct {
	Size int `json:"size"`
}

var widgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets",
	Namespaced: true, StatusSubresource: true}

// TestInformerOfCustomKind: an informer and its lister work unchanged on a
// custom kind served by real API servers (client-go's dynamic informers do
// the same with unstructured objects): the list, then the watch's added,
// modified and deleted events reach the handler and the store, and the
// lister returns *model.CustomObject values whose spec the typed helper
// reads.
func TestInformerOfCustomKind(t *testing.T) {
	reg := model.MustNewRegistry(widgets)
	c := apitest.New(7, 3, 2, func(cfg *apiserver.Config) { cfg.Resources = reg })
	var inf *cache.Informer
	var log []string
	c.AddHost("operator", func(h *sim.Host) {
		cl := client.New(h, client.Config{Name: "operator", User: apitest.AdminUser, Servers: c.Servers})
		inf = cache.NewInformer(cl, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: widgets.Plural, Namespace: "default"}})
		inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj model.Object) { log = append(log, "add "+obj.GetObjectMeta().Name) },
			UpdateFunc: func(_, obj model.Object) { log = append(log, "update "+obj.GetObjectMeta().Name) },
			DeleteFunc: func(obj any) { log = append(log, "delete "+cache.ObjectOf(obj).GetObjectMeta().Name) },
		})
		inf.Run()
	})
	c.Settle()
	do := func(fn func(done client.ObjectCallback)) model.Object {
		var got model.Object
		var err error
		finished := false
		fn(func(o model.Object, e error) { got, err, finished = o, e, true })
		for i := 0; i < 100 && !finished; i++ {
			c.Run(100 * time.Millisecond)
		}
		require.True(t, finished)
		require.NoError(t, err)
		return got
	}
	admin := c.Admin().CustomResources(widgets, "default")
	w := model.NewCustomObject(widgets, "default", "w1")
	require.NoError(t, w.SetSpec(widgetSpec{Size: 1}))
	created := do(func(done client.ObjectCallback) { admin.Create(w, done) }).(*model.CustomObject)
	c.Run(2 * time.Second)
	require.True(t, inf.HasSynced())

	up := created.DeepCopy()
	require.NoError(t, up.SetSpec(widgetSpec{Size: 2}))
	do(func(done client.ObjectCallback) { admin.Update(up, done) })
	c.Run(2 * time.Second)
	got, ok := inf.Lister().ByNamespace("default").Get("w1")
	require.True(t, ok)
	spec, err := model.SpecAs[widgetSpec](got.(*model.CustomObject))
	require.NoError(t, err)
	assert.Equal(t, 2, spec.Size)
	assert.Equal(t, int64(2), got.GetObjectMeta().Generation)

	do(func(done client.ObjectCallback) { admin.Delete("w1", client.DeleteOptions{}, done) })
	c.Run(2 * time.Second)
	_, ok = inf.Lister().ByNamespace("default").Get("w1")
	assert.False(t, ok)
	assert.Equal(t, []string{"add w1", "update w1", "delete w1"}, log)
}

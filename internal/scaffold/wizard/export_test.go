package wizard

// NewModelForTest exposes the model to the external tests.
func NewModelForTest(fields []Field) interface {
	Update(msg any) (any, any)
	View() string
	Answers() map[string]string
} {
	return testModel{&model{fields: fields, answers: map[string]string{}}}
}

type testModel struct{ m *model }

func (t testModel) Update(msg any) (any, any)  { return t.m.Update(msg) }
func (t testModel) View() string               { return t.m.View() }
func (t testModel) Answers() map[string]string { return t.m.answers }

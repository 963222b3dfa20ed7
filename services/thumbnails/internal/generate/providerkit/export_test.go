package providerkit

// TemplateLine exposes templateLine: the placeholder layout package cannot
// yet build a layout with slots from outside.
var TemplateLine = templateLine

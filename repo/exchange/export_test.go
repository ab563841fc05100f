package exchange

// SetExportBatch sets how many issues ExportEach reads ahead, for the
// external tests, and returns a function that restores it.
func SetExportBatch(n int) func() {
	old := exportBatch
	exportBatch = n
	return func() { exportBatch = old }
}

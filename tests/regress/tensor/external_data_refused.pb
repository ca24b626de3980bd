Bwj
locationx.binp
// placeholder, implemented by the DP-SGD work

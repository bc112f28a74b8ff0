// placeholder, implemented by the kernel work

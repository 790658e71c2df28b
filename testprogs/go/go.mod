module goprog

go 1.22

$data << EOD
4096 7.8080 9.6520 11.5320 10.0260 9.7560 3.0390 0.1180 NaN 7.2540 9.2990 12.3590 9.6470 9.3180 2.9060 0.1180 NaN
8192 8.3240 10.1980 12.1320 10.6330 10.1930 3.1260 0.1900 NaN 7.3620 9.4480 13.5610 9.9470 9.4870 3.0340 0.1840 NaN
16384 9.0130 10.5420 12.0780 11.0590 10.6400 2.6580 0.3110 NaN 7.2480 8.7270 14.5840 9.5870 8.7530 2.5970 0.3500 NaN
32768 8.7880 10.2640 14.8210 13.5140 10.2720 3.0760 0.6950 NaN 7.5510 9.0930 20.0530 11.2300 9.1160 3.1140 0.7940 NaN
65536 9.4280 10.9170 21.4200 16.5820 10.9270 3.9630 1.5390 NaN 8.2250 9.7830 29.6270 13.9860 9.7330 4.0200 1.6310 NaN
131072 10.5070 12.0970 24.4720 22.3560 12.1070 5.6390 3.2320 NaN 9.4000 10.9510 47.1540 18.8580 10.9350 5.6880 3.3150 NaN
262144 13.0280 14.5510 37.7730 31.0210 14.5590 9.0420 6.5920 NaN 11.9870 13.4060 84.3250 28.3330 13.5550 9.1190 6.7360 NaN
524288 17.9230 19.8500 65.7950 52.6930 19.9380 16.9700 17.4290 NaN 17.2630 19.4080 152.1880 43.2970 19.9710 18.0670 24.1200 NaN
1048576 28.5020 31.6400 149.9330 128.6640 31.4110 59.8550 67.6230 NaN 28.1160 31.0800 304.2210 104.1980 31.0970 75.4620 83.0920 NaN
2097152 47.6820 51.7820 343.9910 236.8470 51.6610 168.3670 157.3940 NaN 47.7160 51.4280 498.3310 215.8740 51.0920 184.4490 176.3570 NaN
4194304 86.2110 90.9120 655.4910 447.1660 90.8240 339.5180 326.4640 NaN 85.9500 90.0870 946.1720 424.2970 90.1840 390.4350 377.1850 NaN
8388608 162.0930 167.7200 1285.9260 871.6950 166.9890 678.2170 667.6690 NaN 162.9320 166.7220 1803.9500 836.7370 167.2310 827.8440 847.7300 NaN
16777216 314.6730 320.3280 2560.0180 2047.7440 319.8660 1371.5060 1763.4110 NaN 314.0610 320.6160 3336.5820 1685.1800 319.6810 1847.7400 2260.6140 NaN
33554432 622.8880 635.8100 10040.9150 6319.0320 632.7550 5410.4830 5519.0430 NaN 627.8300 633.0780 7746.1740 5062.6890 632.3670 5399.1250 5636.9430 NaN
67108864 1232.7120 1251.0530 21536.7760 12842.5660 1251.0800 11514.5580 11545.8840 NaN 1244.2680 1259.6200 16489.5320 12263.4780 1259.3230 11607.0590 11510.5490 NaN
EOD
set terminal pngcairo size 1500,640 noenhanced
set output 'latency.png'
set multiplot layout 1,2
set title 'read (card->GPU), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:2 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:4 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:5 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:6 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:7 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:8 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
set title 'write (GPU->card), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:10 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:11 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:12 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:13 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:14 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:15 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:16 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
unset multiplot
set output
set terminal svg size 1500,640 dynamic noenhanced
set output 'latency.svg'
set multiplot layout 1,2
set title 'read (card->GPU), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:2 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:4 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:5 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:6 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:7 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:8 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
set title 'write (GPU->card), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:10 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:11 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:12 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:13 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:14 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:15 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:16 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
unset multiplot
set output

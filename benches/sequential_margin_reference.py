#!/usr/bin/env python3
"""numpy reference of stats::confidence_sequence::skew_calibrated_level with its margin
(CALIBRATION_MARGIN = 0.9): the Ville level at which Lai's t-mixture holds the true mean at
every look in 95.5 % of 20 000 paths of each shape (normal 3 %; 2 % + 15 % of layouts 8 %
slower; 3 % + 5 % of layouts 20 % slower; binary noise 0.0063), for numpy seeds 0..5.
Usage: python3 benches/sequential_margin_reference.py"""
import numpy as np, math
def rho_for(t,c=0.95):
    la=math.log(1-c); return t/(-2*la+math.log(1-2*la))
def level(first,last,planned,seed,q=0.955,P=20000):
    rng=np.random.default_rng(seed); rho=rho_for(planned); worst=-1e9
    for sp,sl,sw in [(0.03,0,0),(0.02,0.15,0.08),(0.03,0.05,0.20)]:
        y=sp*rng.standard_normal((P,last))+np.where(rng.random((P,last))<sl,math.log1p(sw),0)+0.0063*rng.standard_normal((P,last))-sl*math.log1p(sw)
        S=np.cumsum(y,1); V=np.cumsum(y*y,1); t=np.arange(1,last+1)
        lm=(0.5*np.log(rho/(t+rho)) - t/2*np.log1p(-S*S/((t+rho)*V)))[:,first-1:].max(1)
        worst=max(worst,np.quantile(lm,q))
    return min(0.05,math.exp(-worst))
for seed in range(6):
    print(seed, "5..120@120 %.5f"%level(5,120,120,seed), "5..40@40 %.5f"%level(5,40,40,seed))

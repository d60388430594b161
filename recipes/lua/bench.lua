-- A mixed Lua workload (our own, for layoutrand's recipe): interpreter dispatch, tables,
-- strings, closures. Prints one line per iteration ("iter I: T ms", CPU time from os.clock)
-- and a checksum that must not depend on layout or timing.
local iterations = tonumber(arg[1]) or 10
local scale = tonumber(arg[2]) or 1

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function tables(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % 10007 end
  table.sort(t)
  local acc = 0
  for i = 1, n, 97 do acc = acc + t[i] end
  return acc
end

local function strings(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("%x", i * 31) end
  local s = table.concat(parts, ",")
  local count = 0
  for w in s:gmatch("[a-f]+") do count = count + #w end
  return count
end

local function closures(n)
  local acc = 0
  local function adder(k) return function(x) return x + k end end
  for i = 1, n do acc = adder(i % 13)(acc) % 1000003 end
  return acc
end

local checksum = 0
for it = 0, iterations - 1 do
  local start = os.clock()
  local c = fib(20 + scale) + tables(20000 * scale) + strings(8000 * scale) + closures(60000 * scale)
  local elapsed = (os.clock() - start) * 1000
  checksum = (checksum * 31 + c) % 2147483647
  print(string.format("iter %d: %.4f ms", it, elapsed))
end
print("checksum: " .. checksum)

"use strict";
const runtime = require("@acme/sdk/runtime");

function helper() {
  return require("@acme/sdk/helpers");
}

module.exports = { helper, runtime };
